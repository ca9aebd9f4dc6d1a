package dev.keypool.it;

import java.time.Instant;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * /admin/status shows per key its health, its effective weight and its use of every limited quota window. One gateway
 * for the class: each test reads its own channel's key.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class QuotaStatusTest extends GatewayTestSupport {

    private static final ObjectMapper JSON = new ObjectMapper();

    @Override
    protected String keypoolYaml() {
        return """
                channels:
                  - name: daily
                    baseUrl: UPSTREAM
                    models: [gpt-daily]
                    quotaZone: Asia/Shanghai
                    keys:
                      - key: sk-daily-1
                        weight: 3
                        rpm: 100
                        rpd: 10
                        tpd: 1000
                  - name: cooling
                    baseUrl: UPSTREAM
                    models: [gpt-cooling]
                    maxRetries: 0
                    keys:
                      - key: sk-cooling-1
                admin:
                  token: admin-secret
                """;
    }

    @Test
    void should_show_quota_use_per_window_and_degraded_from_90_percent() throws Exception {
        clock.set(Instant.parse("2026-11-30T10:00:00Z"));   // 18:00 in Shanghai
        assertThat(chat("gpt-daily").statusCode()).isEqualTo(200);

        JsonNode fresh = key("daily");
        assertThat(fresh.path("health").asText()).isEqualTo("healthy");
        assertThat(fresh.path("effectiveWeight").asDouble()).isEqualTo(3.0);

        for (int i = 0; i < 8; i++) {
            assertThat(chat("gpt-daily").statusCode()).isEqualTo(200);
        }

        JsonNode key = key("daily");
        assertThat(key.path("health").asText()).isEqualTo("degraded");
        assertThat(key.path("effectiveWeight").asDouble()).isEqualTo(0.75);
        assertThat(key.path("quota")).hasSize(3);
        assertThat(window(key, "rpm").path("used").asLong()).isEqualTo(9);
        assertThat(window(key, "rpm").path("limit").asLong()).isEqualTo(100);
        assertThat(window(key, "rpm").has("resetsAt")).isFalse();
        assertThat(window(key, "rpd").path("used").asLong()).isEqualTo(9);
        assertThat(window(key, "rpd").path("limit").asLong()).isEqualTo(10);
        assertThat(window(key, "rpd").path("resetsAt").asText()).isEqualTo("2026-12-01T00:00+08:00");
        // the fake provider reports 18 tokens per call
        assertThat(window(key, "tpd").path("used").asLong()).isEqualTo(9 * 18);
        assertThat(window(key, "tpd").path("limit").asLong()).isEqualTo(1000);
    }

    @Test
    void should_show_a_cooling_key_as_unhealthy_with_no_quota_windows() throws Exception {
        upstream.answer("sk-cooling-1", 429);
        chat("gpt-cooling");

        JsonNode key = key("cooling");
        assertThat(key.path("state").asText()).isEqualTo("COOLING");
        assertThat(key.path("health").asText()).isEqualTo("unhealthy");
        assertThat(key.path("quota")).isEmpty();
    }

    private JsonNode key(String channel) throws Exception {
        JsonNode status = JSON.readTree(getWithToken("/admin/status", "admin-secret").body());
        for (JsonNode c : status.path("channels")) {
            if (c.path("name").asText().equals(channel)) {
                return c.path("keys").get(0);
            }
        }
        throw new AssertionError("no channel " + channel + " in " + status);
    }

    private static JsonNode window(JsonNode key, String name) {
        for (JsonNode w : key.path("quota")) {
            if (w.path("window").asText().equals(name)) {
                return w;
            }
        }
        throw new AssertionError("no window " + name + " in " + key);
    }
}
