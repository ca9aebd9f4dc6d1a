package dev.keypool.it;

import java.time.Duration;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.keypool.pool.ApiKey;
import dev.keypool.pool.Fingerprint;
import dev.keypool.pool.KeyPool;
import dev.keypool.pool.KeyState;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A key disabled by five 500s in a channel without a probe block comes back by itself (design §8, recovery): probed
 * after a minute, ACTIVE again at 30 % of its weight, then at its full weight once its degraded time is over.
 */
class KeyHealsByItselfTest extends GatewayTestSupport {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String A = Fingerprint.of("sk-a");

    @Override
    protected String keypoolYaml() {
        return """
                channels:
                  - name: main
                    baseUrl: UPSTREAM
                    models: [gpt-heal]
                    maxRetries: 1
                    breaker:
                      triggers: [latency]
                    keys:
                      - key: sk-a
                      - key: sk-b
                admin:
                  token: admin-secret
                """;
    }

    @Test
    void should_probe_a_key_disabled_by_five_500s_and_bring_it_back_degraded_then_healthy() throws Exception {
        KeyPool pool = channel("main").pool();
        ApiKey a = pool.find(A).orElseThrow();
        upstream.answer("sk-a", 500);
        for (int i = 0; i < 20 && upstream.hits("sk-a") < 5; i++) {
            assertThat(chat("gpt-heal").statusCode()).isEqualTo(200);   // retried on sk-b
        }
        assertThat(pool.stateOf(a)).isEqualTo(KeyState.DISABLED);
        assertThat(logs.lines()).contains("WARN Key " + A + "(main) disabled after 5 consecutive failures (last: 500)");

        // the provider is fine again; nobody touches the key: its first recovery probe goes out a minute later
        upstream.healthy("sk-a");
        clock.advance(Duration.ofMinutes(1));
        await().atMost(Duration.ofSeconds(5)).until(() -> pool.stateOf(a) == KeyState.ACTIVE);

        assertThat(upstream.received()).filteredOn(r -> r.key().equals("sk-a") && r.path().equals("/v1/models")).hasSize(1);
        assertThat(logs.lines()).contains("INFO Key " + A + "(main) probe ok, DISABLED -> ACTIVE "
                + "(degraded: 30 % of its weight for 5m or 20 calls without error)");
        assertThat(status(A).path("health").asText()).isEqualTo("degraded");
        assertThat(status(A).path("effectiveWeight").asDouble()).isEqualTo(0.3);
        int before = upstream.hits("sk-a");
        for (int i = 0; i < 26; i++) {
            assertThat(chat("gpt-heal").statusCode()).isEqualTo(200);
        }
        assertThat(upstream.hits("sk-a") - before).as("0.3 against 1: 6 of 26").isBetween(5, 7);

        clock.advance(Duration.ofMinutes(5));

        assertThat(status(A).path("health").asText()).isEqualTo("healthy");
        assertThat(status(A).path("effectiveWeight").asDouble()).isEqualTo(1.0);
        assertThat(logs.lines()).contains("INFO Key " + A + "(main) recovered after degraded for 5m, full weight");
    }

    private JsonNode status(String fingerprint) throws Exception {
        JsonNode status = JSON.readTree(getWithToken("/admin/status", "admin-secret").body());
        for (JsonNode channel : status.path("channels")) {
            for (JsonNode key : channel.path("keys")) {
                if (key.path("fingerprint").asText().equals(fingerprint)) {
                    return key;
                }
            }
        }
        throw new AssertionError("no key " + fingerprint);
    }
}
