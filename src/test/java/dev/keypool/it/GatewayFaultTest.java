package dev.keypool.it;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.http.HttpResponse;
import java.util.Properties;

import dev.keypool.breaker.BreakerState;
import dev.keypool.pool.KeyPool;
import dev.keypool.pool.KeyState;
import dev.keypool.testing.RoutesOnDisk;
import org.apache.logging.log4j.Level;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A failure of the gateway itself after a key was picked (here a step an operator added to the attempt route that
 * throws; a bug would do the same) is no provider's fault: it fails the request with its reason, but counts nothing
 * against the key or the channel's breaker. Counted as a provider failure it disabled every key it touched and opened
 * the breakers of every channel of the walk, for something no provider did, and alerted operators to dead keys.
 */
class GatewayFaultTest extends GatewayTestSupport {

    private static final String KEY_PICKED = """
                    - bean:
                        ref: keySelector
                        method: select
            """;

    private final RoutesOnDisk routes = RoutesOnDisk.copyOfRoutes();

    @Override
    protected String keypoolYaml() {
        // one failure in a row disables a key and trips the breaker: a single blamed attempt would show
        return """
                channels:
                  - name: main
                    baseUrl: UPSTREAM
                    models: [m]
                    maxRetries: 1
                    disableAfter: 1
                    fallback: [backup]
                    breaker:
                      triggers: [consecutive_fail]
                      consecutiveFailThreshold: 1
                    keys:
                      - key: sk-main-1
                      - key: sk-main-2
                  - name: backup
                    baseUrl: UPSTREAM
                    models: ["*"]
                    disableAfter: 1
                    breaker:
                      triggers: [consecutive_fail]
                      consecutiveFailThreshold: 1
                    keys:
                      - key: sk-backup-1
                """;
    }

    @Override
    protected Properties overrideProperties() {
        try {
            routes.insertAfter("upstream.camel.yaml", KEY_PICKED, """
                            - throwException:
                                exceptionType: java.lang.IllegalStateException
                                message: a step added to the routes that fails
                    """);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return routes.watchedBy(super.overrideProperties());
    }

    @Test
    void should_fail_the_request_without_blaming_its_keys_or_channels_when_the_gateway_itself_fails() throws Exception {
        for (int i = 0; i < 3; i++) {
            HttpResponse<String> r = chat("m");
            assertThat(r.statusCode()).as(r.body()).isEqualTo(503);
            assertThat(r.body()).contains("no_channel_available").contains("gateway error: IllegalStateException");
        }

        assertThat(logs.messages(Level.WARN)).as("the operator sees the gateway's error once, with its stack")
                .filteredOn(m -> m.startsWith("Gateway error after a key was picked")).singleElement()
                .asString().contains("IllegalStateException: a step added to the routes that fails");
        assertThat(upstream.totalHits()).as("no call reached a provider").isZero();
        for (String channel : new String[] {"main", "backup"}) {
            KeyPool pool = channel(channel).pool();
            assertThat(pool.keys()).allSatisfy(key -> assertThat(pool.stateOf(key)).as(key.fingerprint())
                    .isEqualTo(KeyState.ACTIVE));
            assertThat(channel(channel).breaker().state()).as(channel).isEqualTo(BreakerState.CLOSED);
        }
    }
}
