package dev.keypool.it;

import java.net.http.HttpResponse;
import java.time.Duration;

import dev.keypool.pool.ApiKey;
import dev.keypool.pool.Fingerprint;
import dev.keypool.pool.KeyPool;
import dev.keypool.pool.KeyState;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A provider without GET /models, as the built-in demo: a key's recovery probe (design §8) falls back to a one-token
 * chat when /models answers 404, and the key comes back.
 */
class DemoKeyRecoveryTest extends GatewayTestSupport {

    private static final String ONE = Fingerprint.of("demo-key-1");

    @Override
    protected String keypoolYaml() {
        return """
                channels:
                  - name: demo
                    baseUrl: http://127.0.0.1:%d/demo/v1
                    models: [demo-chat]
                    maxRetries: 1
                    disableAfter: 1
                    breaker:
                      triggers: [latency]
                    keys:
                      - key: demo-key-1
                      - key: demo-key-2
                admin:
                  token: admin-secret
                """.formatted(port);
    }

    @Test
    void should_probe_with_a_one_token_chat_where_models_answers_404() throws Exception {
        KeyPool pool = channel("demo").pool();
        ApiKey one = pool.find(ONE).orElseThrow();
        HttpResponse<String> fault = adminRequest("admin-secret", "POST", "/admin/faults",
                "{\"channel\":\"demo\",\"key\":\"" + ONE + "\",\"kind\":\"status\",\"status\":500}");
        assertThat(fault.statusCode()).as(fault.body()).isEqualTo(201);
        for (int i = 0; i < 4 && pool.stateOf(one) != KeyState.DISABLED; i++) {
            assertThat(chat("demo-chat").statusCode()).isEqualTo(200);
        }
        assertThat(pool.stateOf(one)).isEqualTo(KeyState.DISABLED);
        adminRequest("admin-secret", "DELETE", "/admin/faults/fault-1", null);

        clock.advance(Duration.ofMinutes(1));

        await().atMost(Duration.ofSeconds(5)).until(() -> pool.stateOf(one) == KeyState.ACTIVE);
        assertThat(logs.lines()).contains(
                "INFO Key " + ONE + "(demo) probe: no GET /models at this provider (404), probing with a one-token chat");
        assertThat(logs.lines()).anyMatch(line -> line.startsWith("INFO Key " + ONE + "(demo) probe ok, DISABLED -> ACTIVE"));
    }
}
