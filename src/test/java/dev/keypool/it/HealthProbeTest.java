package dev.keypool.it;

import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.keypool.pool.ApiKey;
import dev.keypool.pool.Fingerprint;
import dev.keypool.pool.KeyPool;
import dev.keypool.pool.KeyState;
import dev.keypool.testing.FakeUpstream;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Health probes (design §8) end to end: the cold-start probe, the seeds' loop (a fault removes a key, traffic moves, the
 * fault heals, a probe re-admits the key, which warms up) with no operator, and POST /admin/probe.
 */
class HealthProbeTest extends GatewayTestSupport {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String A = Fingerprint.of("sk-a");
    private static final String B = Fingerprint.of("sk-b");

    @Override
    protected String keypoolYaml() {
        return """
                channels:
                  - name: main
                    baseUrl: UPSTREAM
                    models: [gpt-loop]
                    maxRetries: 1
                    disableAfter: 2
                    warmup: 3m
                    probe:
                      interval: 60s
                      disabledInterval: 5m
                      timeout: 2s
                    keys:
                      - key: sk-a
                      - key: sk-b
                  - name: chatty
                    baseUrl: UPSTREAM
                    models: [gpt-chatty]
                    probe:
                      interval: 0
                      request: chat
                      model: upstream-mini
                    keys:
                      - key: sk-c
                  - name: unprobed
                    baseUrl: UPSTREAM
                    models: [gpt-plain]
                    keys:
                      - key: sk-d
                admin:
                  token: admin-secret
                """;
    }

    @Test
    void should_remove_a_failing_key_move_traffic_and_readmit_it_warming_up_once_it_heals() throws Exception {
        awaitColdStart();
        KeyPool pool = channel("main").pool();
        ApiKey a = pool.find(A).orElseThrow();

        // fault: the provider fails every call with key a; retries on b absorb it, a is removed after 2 failures
        upstream.answer("sk-a", 503);
        for (int i = 0; i < 4; i++) {
            assertThat(chat("gpt-loop").statusCode()).isEqualTo(200);
        }
        assertThat(pool.stateOf(a)).isEqualTo(KeyState.DISABLED);
        int failedCalls = chats("sk-a");

        // traffic moves to b
        for (int i = 0; i < 4; i++) {
            assertThat(chat("gpt-loop").headers().firstValue("X-KeyPool-Key")).contains(B);
        }
        assertThat(chats("sk-a")).isEqualTo(failedCalls);

        // the fault heals; at a's next disabled-key slot (5 min) its probe succeeds and it comes back
        upstream.healthy("sk-a");
        int bProbes = probes("sk-b");
        clock.advance(Duration.ofMinutes(4));
        // the schedule ran (b's ACTIVE probe, every minute), and a's DISABLED slot has not come
        await().atMost(Duration.ofSeconds(5)).until(() -> probes("sk-b") > bProbes);
        assertThat(pool.stateOf(a)).isEqualTo(KeyState.DISABLED);
        assertThat(probes("sk-a")).isEqualTo(1);   // the cold start's
        clock.advance(Duration.ofMinutes(1));
        await().atMost(Duration.ofSeconds(5)).until(() -> pool.stateOf(a) == KeyState.ACTIVE);
        assertThat(logs.lines()).contains("INFO Key " + A + "(main) probe ok, DISABLED -> ACTIVE (warming up 3m)");

        // re-admitted at 20 %, 50 %, then 100 % of its weight: shares 1/6, 1/3, 1/2 against b
        assertThat(effectiveWeight(A)).isEqualTo(0.2);
        assertThat(share("sk-a", 24)).isBetween(3, 5);
        clock.advance(Duration.ofMinutes(1));
        assertThat(effectiveWeight(A)).isEqualTo(0.5);
        assertThat(share("sk-a", 24)).isBetween(7, 9);
        clock.advance(Duration.ofMinutes(1));
        assertThat(effectiveWeight(A)).isEqualTo(1.0);
        assertThat(share("sk-a", 24)).isBetween(11, 13);
        assertThat(status(A).path("health").asText()).isEqualTo("degraded");   // last third of the warm-up
        clock.advance(Duration.ofMinutes(1));
        assertThat(status(A).path("health").asText()).isEqualTo("healthy");
    }

    @Test
    void should_probe_every_key_at_startup_in_the_background() throws Exception {
        awaitColdStart();

        assertThat(upstream.received()).filteredOn(r -> r.path().equals("/v1/models"))
                .extracting(FakeUpstream.Received::key).containsExactlyInAnyOrder("sk-a", "sk-b");
        assertThat(upstream.received()).filteredOn(r -> r.path().equals("/v1/chat/completions"))
                .extracting(FakeUpstream.Received::key).containsExactly("sk-c");
        assertThat(upstream.hits("sk-d")).isZero();   // no probe block, no probes
        assertThat(logs.lines()).contains("INFO Cold-start probe of 3 keys, in the background");
    }

    @Test
    void should_probe_every_key_on_demand_and_report_each_outcome() throws Exception {
        awaitColdStart();
        upstream.clear();
        upstream.answer("sk-b", 401);
        upstream.answer("sk-c", 429, "20", null);

        HttpResponse<String> response = admin("/admin/probe", "admin-secret");

        assertThat(response.statusCode()).isEqualTo(200);
        Map<String, JsonNode> byKey = new HashMap<>();
        JSON.readTree(response.body()).path("probes").forEach(p -> byKey.put(p.path("key").asText(), p));
        assertThat(byKey).hasSize(4);
        assertThat(byKey.get(A).path("outcome").asText()).isEqualTo("ok");
        assertThat(byKey.get(B).path("outcome").asText()).isEqualTo("401");
        assertThat(byKey.get(B).path("stateBefore").asText()).isEqualTo("ACTIVE");
        assertThat(byKey.get(B).path("stateAfter").asText()).isEqualTo("DISABLED");
        assertThat(byKey.get(Fingerprint.of("sk-c")).path("request").asText()).isEqualTo("chat");
        assertThat(byKey.get(Fingerprint.of("sk-c")).path("stateAfter").asText()).isEqualTo("COOLING");
        assertThat(byKey.get(Fingerprint.of("sk-d")).path("request").asText()).isEqualTo("models");
        assertThat(byKey.get(Fingerprint.of("sk-d")).path("channel").asText()).isEqualTo("unprobed");
        assertThat(response.body()).doesNotContain("sk-a", "sk-b", "sk-c", "sk-d");
        assertThat(logs.lines()).contains("WARN Key " + B + "(main) probe failed: 401",
                "WARN Key " + B + "(main) disabled after 401 from upstream");

        FakeUpstream.Received chatProbe = upstream.received().stream().filter(r -> r.key().equals("sk-c")).findFirst().orElseThrow();
        assertThat(JSON.readTree(chatProbe.body()).path("model").asText()).isEqualTo("upstream-mini");
        assertThat(JSON.readTree(chatProbe.body()).path("max_tokens").asInt()).isEqualTo(1);
        assertThat(admin("/admin/probe", "wrong").statusCode()).isEqualTo(401);
    }

    /** Chat requests in a row; how many of them key {@code key} served. */
    private int share(String key, int requests) throws Exception {
        int before = chats(key);
        for (int i = 0; i < requests; i++) {
            assertThat(chat("gpt-loop").statusCode()).isEqualTo(200);
        }
        return chats(key) - before;
    }

    private int chats(String key) {
        return (int) upstream.received().stream()
                .filter(r -> r.key().equals(key) && r.path().equals("/v1/chat/completions")).count();
    }

    private int probes(String key) {
        return (int) upstream.received().stream().filter(r -> r.key().equals(key) && r.path().equals("/v1/models")).count();
    }

    private void awaitColdStart() {
        await().atMost(Duration.ofSeconds(10)).until(() -> upstream.received().size() >= 3
                && context.getRegistry().lookupByNameAndType("channels", dev.keypool.gateway.Channels.class).all().stream()
                        .allMatch(c -> c.pool().keys().stream().allMatch(k -> k.inFlight() == 0)));
    }

    private double effectiveWeight(String fingerprint) throws Exception {
        return status(fingerprint).path("effectiveWeight").asDouble();
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

    private HttpResponse<String> admin(String path, String token) throws Exception {
        HttpRequest request = HttpRequest.newBuilder(URI.create(url(path))).timeout(Duration.ofSeconds(30))
                .header("Authorization", "Bearer " + token).POST(HttpRequest.BodyPublishers.noBody()).build();
        return http.send(request, HttpResponse.BodyHandlers.ofString());
    }
}
