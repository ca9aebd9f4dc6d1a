package dev.keypool.it;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import dev.keypool.pool.ApiKey;
import dev.keypool.pool.Fingerprint;
import dev.keypool.pool.KeyPool;
import dev.keypool.pool.KeyState;
import org.apache.logging.log4j.Level;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A newcomer's first try: the shipped keypool.yaml, its demo channel on the built-in simulator, the port given
 * as a setting ({@code -Dcamel.server.port}) rather than as CAMEL_SERVER_PORT in the environment.
 */
class DemoFirstTryTest extends GatewayTestSupport {

    @Override
    protected String keypoolYaml() {
        try {
            return Files.readString(Path.of("keypool.yaml"));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Test
    void should_serve_the_first_requests_and_show_rotation_cooldown_and_disabling() throws Exception {
        List<HttpResponse<String>> responses = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            responses.add(chat("demo-chat"));
        }

        assertThat(responses).allSatisfy(r -> {
            assertThat(r.statusCode()).isEqualTo(200);
            assertThat(r.body()).contains("\"object\":\"chat.completion\"");
        });
        // rotation: both working keys served, and the broken ones cost extra attempts that the headers show
        assertThat(responses).extracting(r -> r.headers().firstValue("X-KeyPool-Key").orElseThrow())
                .containsOnly(Fingerprint.of("demo-key-1"), Fingerprint.of("demo-key-2"))
                .contains(Fingerprint.of("demo-key-1"), Fingerprint.of("demo-key-2"));
        // each broken key costs exactly one extra attempt, once: after it the key is cooling or disabled
        assertThat(responses).extracting(r -> Integer.valueOf(r.headers().firstValue("X-KeyPool-Attempts").orElseThrow()))
                .allSatisfy(attempts -> assertThat(attempts).isPositive())
                .satisfies(attempts -> assertThat(attempts.stream().mapToInt(Integer::intValue).sum())
                        .isEqualTo(responses.size() + 2));

        KeyPool pool = channel("demo").pool();
        ApiKey rateLimited = pool.find(Fingerprint.of("demo-key-rate-limited")).orElseThrow();
        ApiKey revoked = pool.find(Fingerprint.of("demo-key-revoked")).orElseThrow();
        assertThat(rateLimited.stats().callCount()).isEqualTo(1);
        assertThat(revoked.stats().callCount()).isEqualTo(1);
        assertThat(pool.stateOf(rateLimited)).isEqualTo(KeyState.COOLING);
        assertThat(pool.stateOf(revoked)).isEqualTo(KeyState.DISABLED);
        assertThat(logs.messages(Level.INFO))
                .contains("Channel [demo] calls the built-in demo upstream SIMULATOR (canned answers, not a real LLM)")
                .contains("Key " + rateLimited.fingerprint() + "(demo) cooling 30s after 429");
        assertThat(logs.messages(Level.WARN)).contains("Key " + revoked.fingerprint() + "(demo) disabled after 401 from upstream");
    }

    /** Four keys of which one answers 429 and one 401: the two that work share twenty requests evenly. */
    @Test
    void should_share_the_traffic_evenly_between_the_keys_that_work() throws Exception {
        Map<String, Integer> servedBy = new HashMap<>();
        for (int i = 0; i < 20; i++) {
            HttpResponse<String> r = chat("demo-chat");
            assertThat(r.statusCode()).isEqualTo(200);
            servedBy.merge(r.headers().firstValue("X-KeyPool-Key").orElseThrow(), 1, Integer::sum);
        }

        assertThat(servedBy).containsOnly(
                Map.entry(Fingerprint.of("demo-key-1"), 10), Map.entry(Fingerprint.of("demo-key-2"), 10));
    }
}
