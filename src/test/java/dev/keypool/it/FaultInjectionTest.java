package dev.keypool.it;

import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.keypool.breaker.BreakerState;
import dev.keypool.pool.ApiKey;
import dev.keypool.pool.Fingerprint;
import dev.keypool.pool.KeyState;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Faults injected over /admin/faults fail upstream calls just before they go out, and everything after reacts as to
 * the provider's own fault: retries, cooling, disabling, the breaker and the fallback walk. The tests share one gateway,
 * each failing a channel of its own (backup, which the others fall back to, only delayed), with no fault left over.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class FaultInjectionTest extends GatewayTestSupport {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String TOKEN = "admin-secret";

    @Override
    protected String keypoolYaml() {
        return """
                channels:
                  - name: primary
                    baseUrl: UPSTREAM
                    models: [gpt-fault]
                    maxRetries: 2
                    cooldown: 60s
                    breaker:
                      triggers: [consecutive_fail]
                      consecutiveFailThreshold: 2
                    keys:
                      - key: sk-p1
                      - key: sk-p2
                      - key: sk-p3
                    fallback: [backup]
                  - name: keyed
                    baseUrl: UPSTREAM
                    models: [gpt-keyed]
                    maxRetries: 2
                    cooldown: 60s
                    breaker:
                      triggers: [consecutive_fail]
                      consecutiveFailThreshold: 2
                    keys:
                      - key: sk-k1
                      - key: sk-k2
                      - key: sk-k3
                    fallback: [backup]
                  - name: fragile
                    baseUrl: UPSTREAM
                    models: [gpt-fragile]
                    timeout: 300ms
                    maxRetries: 0
                    disableAfter: 1
                    keys:
                      - key: sk-f1
                    fallback: [backup]
                  - name: backup
                    baseUrl: UPSTREAM
                    models: [gpt-backup]
                    keys:
                      - key: sk-b1
                  - name: expiring
                    baseUrl: UPSTREAM
                    models: [gpt-expiring]
                    keys:
                      - key: sk-e1
                admin:
                  token: admin-secret
                """;
    }

    @Test
    void should_retry_trip_the_breaker_and_fall_back_on_a_503_fault_at_rate_1() throws Exception {
        HttpResponse<String> added = adminRequest(TOKEN, "POST", "/admin/faults",
                "{\"channel\":\"primary\",\"kind\":\"status\",\"status\":503,\"rate\":1,\"duration\":\"60s\"}");
        assertThat(added.statusCode()).isEqualTo(201);
        String id = JSON.readTree(added.body()).path("id").asText();
        assertThat(id).matches("fault-\\d+");

        HttpResponse<String> first = chat("gpt-fault");

        assertThat(first.statusCode()).isEqualTo(200);
        assertThat(first.headers().firstValue("X-KeyPool-Channel")).contains("backup");
        assertThat(first.headers().firstValue("X-Fallback-Level")).contains("1");
        assertThat(first.headers().firstValue("X-KeyPool-Attempts")).contains("4");   // 3 keys of primary, then backup
        assertThat(channel("primary").pool().keys()).allSatisfy(key -> assertThat(key.stats().failureCount()).isEqualTo(1));

        assertThat(chat("gpt-fault").headers().firstValue("X-KeyPool-Channel")).contains("backup");
        assertThat(channel("primary").breaker().state()).isEqualTo(BreakerState.OPEN);
        HttpResponse<String> whileOpen = chat("gpt-fault");
        assertThat(whileOpen.statusCode()).isEqualTo(200);
        assertThat(whileOpen.headers().firstValue("X-KeyPool-Attempts")).contains("1");
        // the provider itself never saw the primary's calls
        assertThat(upstream.hits("sk-p1") + upstream.hits("sk-p2") + upstream.hits("sk-p3")).isZero();
        assertThat(logs.lines()).contains("WARN Channel [primary] tripped: consecutive_fail (2 >= 2)");
        assertThat(logs.lines()).contains(
                "WARN Fault " + id + " injected: status 503 at rate 1.0 on channel [primary] (all keys) for 60s");
    }

    @Test
    void should_cool_only_the_key_a_429_fault_names() throws Exception {
        String p2 = Fingerprint.of("sk-k2");
        assertThat(adminRequest(TOKEN, "POST", "/admin/faults",
                "{\"channel\":\"keyed\",\"key\":\"" + p2 + "\",\"kind\":\"status\",\"status\":429}").statusCode()).isEqualTo(201);

        for (int i = 0; i < 6; i++) {
            HttpResponse<String> response = chat("gpt-keyed");
            assertThat(response.statusCode()).isEqualTo(200);
            assertThat(response.headers().firstValue("X-KeyPool-Channel")).contains("keyed");
        }

        ApiKey cooled = channel("keyed").pool().find(p2).orElseThrow();
        assertThat(channel("keyed").pool().stateOf(cooled)).isEqualTo(KeyState.COOLING);
        assertThat(cooled.stats().rateLimitCount()).isEqualTo(1);
        assertThat(channel("keyed").pool().keys()).filteredOn(key -> key != cooled)
                .allSatisfy(key -> assertThat(channel("keyed").pool().stateOf(key)).isEqualTo(KeyState.ACTIVE));
        assertThat(upstream.hits("sk-k2")).isZero();
        assertThat(upstream.hits("sk-k1") + upstream.hits("sk-k3")).isEqualTo(6);
        assertThat(logs.lines()).contains("INFO Key " + p2 + "(keyed) cooling 60s after 429");
    }

    @Test
    void should_fail_like_a_provider_timeout_and_like_a_reset_connection() throws Exception {
        String timeout = id(adminRequest(TOKEN, "POST", "/admin/faults",
                "{\"channel\":\"fragile\",\"kind\":\"timeout\"}"));

        HttpResponse<String> timedOut = chat("gpt-fragile");

        assertThat(timedOut.statusCode()).isEqualTo(200);
        assertThat(timedOut.headers().firstValue("X-KeyPool-Channel")).contains("backup");
        String f1 = Fingerprint.of("sk-f1");
        assertThat(logs.lines()).contains("WARN Key " + f1 + "(fragile) disabled after 1 consecutive failures (last: timeout)");

        adminRequest(TOKEN, "DELETE", "/admin/faults/" + timeout, null);
        channel("fragile").pool().controls().enable(f1);
        adminRequest(TOKEN, "POST", "/admin/faults", "{\"channel\":\"fragile\",\"kind\":\"reset\"}");

        assertThat(chat("gpt-fragile").headers().firstValue("X-KeyPool-Channel")).contains("backup");
        assertThat(logs.lines()).contains(
                "WARN Key " + f1 + "(fragile) disabled after 1 consecutive failures (last: connection error (SocketException))");
        assertThat(upstream.hits("sk-f1")).isZero();
    }

    @Test
    void should_delay_calls_by_a_latency_fault() throws Exception {
        adminRequest(TOKEN, "POST", "/admin/faults", "{\"channel\":\"backup\",\"kind\":\"latency\",\"latencyMs\":400}");

        long start = System.nanoTime();
        HttpResponse<String> response = chat("gpt-backup");

        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isGreaterThanOrEqualTo(Duration.ofMillis(400));
        assertThat(upstream.hits("sk-b1")).isEqualTo(1);
    }

    @Test
    void should_end_a_fault_by_the_clock_and_say_so() throws Exception {
        String id = id(adminRequest(TOKEN, "POST", "/admin/faults",
                "{\"channel\":\"expiring\",\"kind\":\"status\",\"status\":500,\"duration\":\"30s\"}"));
        assertThat(chat("gpt-expiring").statusCode()).isEqualTo(503);

        clock.advance(Duration.ofSeconds(30));

        await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> assertThat(logs.lines()).contains(
                "WARN Fault " + id + " ended: its 30s are over (status 500 at rate 1.0 on channel [expiring] (all keys) for 30s)"));
        assertThat(JSON.readTree(adminRequest(TOKEN, "GET", "/admin/faults", null).body()).path("faults")).isEmpty();
        assertThat(chat("gpt-expiring").statusCode()).isEqualTo(200);
    }

    @Test
    void should_list_and_remove_faults() throws Exception {
        String id = id(adminRequest(TOKEN, "POST", "/admin/faults",
                "{\"channel\":\"backup\",\"kind\":\"latency\",\"latencyMs\":10,\"rate\":0.5}"));

        JsonNode list = JSON.readTree(adminRequest(TOKEN, "GET", "/admin/faults", null).body()).path("faults");
        assertThat(list).hasSize(1);
        assertThat(list.get(0).path("kind").asText()).isEqualTo("latency");
        assertThat(list.get(0).path("latencyMs").asLong()).isEqualTo(10);
        assertThat(list.get(0).path("rate").asDouble()).isEqualTo(0.5);
        assertThat(list.get(0).path("duration").asText()).isEqualTo("60s");
        assertThat(list.get(0).path("key").isNull()).isTrue();

        assertThat(adminRequest(TOKEN, "DELETE", "/admin/faults/" + id, null).statusCode()).isEqualTo(200);
        HttpResponse<String> again = adminRequest(TOKEN, "DELETE", "/admin/faults/" + id, null);
        assertThat(again.statusCode()).isEqualTo(404);
        assertThat(JSON.readTree(again.body()).path("error").path("code").asText()).isEqualTo("fault_not_found");
        assertThat(JSON.readTree(adminRequest(TOKEN, "GET", "/admin/faults", null).body()).path("faults")).isEmpty();
    }

    @Test
    void should_answer_400_listing_every_problem_and_401_without_the_token() throws Exception {
        HttpResponse<String> bad = adminRequest(TOKEN, "POST", "/admin/faults",
                "{\"channel\":\"nowhere\",\"kind\":\"status\",\"rate\":3}");

        assertThat(bad.statusCode()).isEqualTo(400);
        JsonNode error = JSON.readTree(bad.body()).path("error");
        assertThat(error.path("code").asText()).isEqualTo("invalid_fault");
        assertThat(error.path("type").asText()).isEqualTo("invalid_request_error");
        assertThat(error.path("message").asText()).isEqualTo("Invalid fault: channel: no channel named 'nowhere'; "
                + "status: is required for this kind; rate: must be a number > 0 and <= 1");
        assertThat(adminRequest(TOKEN, "POST", "/admin/faults", "not json").statusCode()).isEqualTo(400);

        HttpRequest noToken = HttpRequest.newBuilder(URI.create(url("/admin/faults")))
                .POST(HttpRequest.BodyPublishers.ofString("{\"channel\":\"backup\",\"kind\":\"reset\"}")).build();
        assertThat(http.send(noToken, HttpResponse.BodyHandlers.ofString()).statusCode()).isEqualTo(401);
        assertThat(JSON.readTree(adminRequest(TOKEN, "GET", "/admin/faults", null).body()).path("faults")).isEmpty();
    }

    /** Faults outlive a test in the gateway the tests share: each test starts with none. */
    @BeforeEach
    void removeFaults() throws Exception {
        for (JsonNode fault : JSON.readTree(adminRequest(TOKEN, "GET", "/admin/faults", null).body()).path("faults")) {
            assertThat(adminRequest(TOKEN, "DELETE", "/admin/faults/" + id(fault), null).statusCode()).isEqualTo(200);
        }
    }

    private static String id(HttpResponse<String> added) throws Exception {
        assertThat(added.statusCode()).isEqualTo(201);
        return id(JSON.readTree(added.body()));
    }

    private static String id(JsonNode fault) {
        return fault.path("id").asText();
    }
}
