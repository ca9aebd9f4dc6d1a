package dev.keypool.it;

import java.time.Duration;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.keypool.pool.Fingerprint;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** A key rolling out starts at 10 % of its weight and has all of it after its rollout; a retiring key keeps 10 %. */
class KeyRampTest extends GatewayTestSupport {

    private static final ObjectMapper JSON = new ObjectMapper();

    @Override
    protected String keypoolYaml() {
        return """
                channels:
                  - name: growing
                    baseUrl: UPSTREAM
                    models: [gpt-growing]
                    keys:
                      - key: sk-new
                        rollout: 24h
                      - key: sk-established
                  - name: shrinking
                    baseUrl: UPSTREAM
                    models: [gpt-shrinking]
                    strategy: weighted-random
                    keys:
                      - key: sk-old
                        weight: 2
                        retiring: true
                      - key: sk-current
                        weight: 2
                admin:
                  token: admin-secret
                """;
    }

    @Test
    void should_give_a_rolling_out_key_10_percent_at_the_start_and_its_full_weight_after_24h() throws Exception {
        JsonNode fresh = key("sk-new");
        assertThat(fresh.path("effectiveWeight").asDouble()).isEqualTo(0.1, org.assertj.core.data.Offset.offset(1e-9));
        assertThat(fresh.path("health").asText()).isEqualTo("degraded");
        assertThat(fresh.path("rolloutUntil").asText()).isEqualTo(clock.instant().plus(Duration.ofHours(24)).toString());
        assertThat(served("gpt-growing", 22, "sk-new")).isBetween(1, 3);   // 0.1 / 1.1 of 22 = 2

        clock.advance(Duration.ofHours(24));

        assertThat(key("sk-new").path("effectiveWeight").asDouble()).isEqualTo(1.0);
        assertThat(key("sk-new").path("health").asText()).isEqualTo("healthy");
        assertThat(served("gpt-growing", 20, "sk-new")).isBetween(9, 11);
    }

    @Test
    void should_keep_a_retiring_key_at_10_percent_of_its_weight() throws Exception {
        clock.advance(Duration.ofDays(7));

        JsonNode old = key("sk-old");
        assertThat(old.path("retiring").asBoolean()).isTrue();
        assertThat(old.path("effectiveWeight").asDouble()).isEqualTo(0.2, org.assertj.core.data.Offset.offset(1e-9));
        assertThat(old.path("health").asText()).isEqualTo("degraded");
        assertThat(key("sk-current").path("retiring").asBoolean()).isFalse();
        // weighted-random: 1 in 11 on average; 330 calls keep it well inside 10..50
        assertThat(served("gpt-shrinking", 330, "sk-old")).isBetween(10, 50);
    }

    private int served(String model, int requests, String key) throws Exception {
        int before = upstream.hits(key);
        for (int i = 0; i < requests; i++) {
            assertThat(chat(model).statusCode()).isEqualTo(200);
        }
        return upstream.hits(key) - before;
    }

    private JsonNode key(String secret) throws Exception {
        String fingerprint = Fingerprint.of(secret);
        for (JsonNode channel : JSON.readTree(getWithToken("/admin/status", "admin-secret").body()).path("channels")) {
            for (JsonNode key : channel.path("keys")) {
                if (key.path("fingerprint").asText().equals(fingerprint)) {
                    return key;
                }
            }
        }
        throw new AssertionError("no key " + fingerprint);
    }
}
