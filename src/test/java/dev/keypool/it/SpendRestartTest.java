package dev.keypool.it;

import java.net.URI;
import java.net.http.HttpRequest;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.keypool.testing.FakeUpstream;
import dev.keypool.testing.GatewayInstance;
import dev.keypool.testing.MutableClock;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

/**
 * Spend survives a restart without Redis: two real gateways, one after the other, on the same state.dir, the second
 * reading the first's spend back from the request log. Each call costs (11 × 2 + 7 × 4) / 1M = 0.00005 USD; the
 * tenant may spend 0.0001 a day.
 */
class SpendRestartTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path dir;

    private final MutableClock clock = new MutableClock(Instant.parse("2026-12-01T10:00:00Z"));
    private final FakeUpstream upstream = new FakeUpstream();
    private GatewayInstance gateway;

    @AfterEach
    void stop() {
        if (gateway != null) {
            gateway.close();
        }
        upstream.close();
    }

    @Test
    void should_refuse_a_tenant_whose_daily_budget_was_spent_before_the_restart() {
        start();
        assertThat(gateway.chat("glm-4-flash", "acme-token").statusCode()).isEqualTo(200);
        assertThat(gateway.chat("glm-4-flash", "acme-token").statusCode()).isEqualTo(200);
        restart();

        var refused = gateway.chat("glm-4-flash", "acme-token");

        assertThat(refused.statusCode()).isEqualTo(429);
        assertThat(refused.body()).contains("budget_exceeded");
        assertThat(upstream.hits("sk-zhipu-spend")).isEqualTo(2);
    }

    @Test
    void should_give_the_budget_back_on_the_next_day_after_a_restart() {
        start();
        gateway.chat("glm-4-flash", "acme-token");
        gateway.chat("glm-4-flash", "acme-token");
        gateway.close();
        clock.set(Instant.parse("2026-12-02T00:00:01Z"));
        start();

        assertThat(gateway.chat("glm-4-flash", "acme-token").statusCode()).isEqualTo(200);
    }

    @Test
    void should_continue_the_cost_per_channel_key_and_model_after_a_restart() throws Exception {
        start();
        String key = gateway.chat("glm-4-flash", "acme-token").headers().firstValue("X-KeyPool-Key").orElseThrow();
        restart();
        gateway.chat("glm-4-flash", "beta-token");

        JsonNode channel = JSON.readTree(gateway.send(HttpRequest.newBuilder(URI.create(gateway.baseUrl() + "/admin/status"))
                .header("Authorization", "Bearer admin-secret").timeout(Duration.ofSeconds(30)).GET().build()).body())
                .path("channels").get(0);

        assertThat(channel.path("costUsd").asDouble()).isCloseTo(0.0001, within(1e-12));
        assertThat(channel.path("keys").get(0).path("fingerprint").asText()).isEqualTo(key);
        assertThat(channel.path("keys").get(0).path("costUsd").asDouble()).isCloseTo(0.0001, within(1e-12));
        assertThat(channel.path("usageByModel").get(0).path("promptTokens").asLong()).isEqualTo(22);
        assertThat(channel.path("usageByModel").get(0).path("costUsd").asDouble()).isCloseTo(0.0001, within(1e-12));
    }

    private void restart() {
        // a stopping gateway writes the rows its log still holds (RequestLogStopTest)
        gateway.close();
        start();
    }

    private void start() {
        gateway = GatewayInstance.start(dir, "gateway", """
                channels:
                  - name: zhipu
                    baseUrl: %s
                    models: [glm-4-flash]
                    pricing:
                      glm-4-flash: {input: 2.0, output: 4.0}
                    keys:
                      - key: sk-zhipu-spend
                tenants:
                  - name: acme
                    token: acme-token
                    budget: {daily: 0.0001}
                  - name: beta
                    token: beta-token
                admin:
                  token: admin-secret
                """.formatted(upstream.baseUrl()), clock);
    }
}
