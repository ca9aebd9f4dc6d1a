package dev.keypool.it;

import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.keypool.breaker.BreakerState;
import dev.keypool.gateway.Channel;
import org.apache.logging.log4j.Level;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * OPEN -> HALF_OPEN -> CLOSED/OPEN of design §3 through the real routes, time driven by the test clock. The tests share
 * one gateway, each on a channel of its own: the clock moves for all, but only the running test's channel is used.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class BreakerRecoveryTest extends GatewayTestSupport {

    /**
     * Each test's own channel main, named after the test, serving one model of the same name with one key of its own
     * (a key another test disabled may be probed while this one runs).
     */
    @Override
    protected String keypoolYaml() {
        StringBuilder yaml = new StringBuilder("""
                admin:
                  token: admin-test-token
                channels:
                """);
        for (String test : testNames()) {
            yaml.append("""
                      - name: %1$s
                        baseUrl: UPSTREAM
                        models: [%1$s]
                        maxRetries: 0
                        disableAfter: 100
                        fallback: [backup]
                        breaker:
                          triggers: [pool_exhausted, consecutive_fail]
                          consecutiveFailThreshold: 1
                          recoveryTimeout: 30s
                          halfOpenRequests: 3
                          halfOpenSuccess: 2
                          reopenDelay: 60s
                        keys:
                          - key: sk-%1$s
                    """.formatted(test));
        }
        // after them: a channel of every model would be their primary
        return yaml.append("""
                  - name: backup
                    baseUrl: UPSTREAM
                    models: ["*"]
                    keys:
                      - key: sk-backup-1
                """).toString();
    }

    /** This test's channel main. */
    private Channel main() {
        return channel(testName());
    }

    /** The one key of this test's channel. */
    private String mainKey() {
        return "sk-" + testName();
    }

    private HttpResponse<String> chat() throws Exception {
        return chat(testName());
    }

    private void tripMain() throws Exception {
        upstream.answer(mainKey(), 500);
        assertThat(chat().headers().firstValue("X-KeyPool-Channel")).contains("backup");
        assertThat(main().breaker().state()).isEqualTo(BreakerState.OPEN);
    }

    @Test
    void should_stay_open_until_the_recovery_timeout() throws Exception {
        tripMain();
        upstream.healthy(mainKey());
        upstream.clear();

        clock.advance(Duration.ofSeconds(29));
        assertThat(chat().headers().firstValue("X-KeyPool-Channel")).contains("backup");
        assertThat(upstream.hits(mainKey())).isZero();
        assertThat(main().breaker().state()).isEqualTo(BreakerState.OPEN);
    }

    @Test
    void should_close_after_two_of_three_probes_succeed() throws Exception {
        tripMain();
        upstream.healthy(mainKey());
        clock.advance(Duration.ofSeconds(30));

        HttpResponse<String> first = chat();
        assertThat(first.headers().firstValue("X-KeyPool-Channel")).contains(testName());
        assertThat(main().breaker().state()).isEqualTo(BreakerState.HALF_OPEN);
        HttpResponse<String> second = chat();
        assertThat(second.headers().firstValue("X-KeyPool-Channel")).contains(testName());

        assertThat(main().breaker().state()).isEqualTo(BreakerState.CLOSED);
        assertThat(logs.messages(Level.INFO)).containsSubsequence(
                "Channel [" + testName() + "] recovery timeout elapsed, HALF_OPEN (needs 2/3)",
                "Channel [" + testName() + "] half-open probe succeeded (1/2 successes, 1/3 probed)",
                "Channel [" + testName() + "] half-open probe succeeded (2/2 successes, 2/3 probed)",
                "Channel [" + testName() + "] half-open passed, CLOSED (2/3)");
    }

    @Test
    void should_reopen_right_after_the_second_failed_probe_and_still_serve_the_clients() throws Exception {
        tripMain();
        upstream.healthy(mainKey());
        clock.advance(Duration.ofSeconds(30));

        assertThat(chat().headers().firstValue("X-KeyPool-Channel")).contains(testName());   // success 1/3
        upstream.answer(mainKey(), 500);
        HttpResponse<String> failedProbe = chat();                                        // failure: 2 still possible
        assertThat(failedProbe.statusCode()).isEqualTo(200);
        assertThat(failedProbe.headers().firstValue("X-KeyPool-Channel")).contains("backup");
        assertThat(main().breaker().state()).isEqualTo(BreakerState.HALF_OPEN);
        chat();                                                                           // second failure: 2/3 unreachable

        assertThat(main().breaker().state()).isEqualTo(BreakerState.OPEN);
        assertThat(main().breaker().nextAttemptAt()).contains(clock.instant().plusSeconds(60));
        assertThat(logs.messages(Level.WARN)).contains("Channel [" + testName() + "] half-open failed, OPEN, next try in 60s");
        assertThat(logs.messages(Level.INFO)).contains("Channel [" + testName() + "] half-open probe failed (1/2 successes, 3/3 probed)");
    }

    @Test
    void should_not_go_half_open_while_no_key_is_active() throws Exception {
        upstream.answer(mainKey(), 429, "120", null);
        chat();                        // key cooling 120 s, channel tripped by pool_exhausted
        assertThat(main().breaker().state()).isEqualTo(BreakerState.OPEN);

        clock.advance(Duration.ofSeconds(30));
        assertThat(chat().headers().firstValue("X-KeyPool-Channel")).contains("backup");
        assertThat(main().breaker().state()).isEqualTo(BreakerState.OPEN);
        assertThat(logs.messages(Level.INFO))
                .contains("Channel [" + testName() + "] recovery timeout elapsed but no ACTIVE key, OPEN, next try in 60s");

        upstream.healthy(mainKey());
        clock.advance(Duration.ofSeconds(90));   // key back at 120 s, next try at 90 s
        assertThat(main().breaker().state()).isEqualTo(BreakerState.HALF_OPEN);
    }

    @Test
    void should_let_no_more_than_half_open_requests_probes_through_under_load() throws Exception {
        tripMain();
        // the probes fail slowly: they are all in flight while the other requests arrive, and after the
        // second failure the channel is OPEN again, so every upstream call of main below is a probe
        upstream.slow(mainKey(), 1000, 500);
        upstream.clear();
        clock.advance(Duration.ofSeconds(30));

        ExecutorService pool = Executors.newFixedThreadPool(50);
        try {
            List<CompletableFuture<HttpResponse<String>>> calls = new ArrayList<>();
            for (int i = 0; i < 50; i++) {
                calls.add(CompletableFuture.supplyAsync(() -> {
                    try {
                        return chat();
                    } catch (Exception e) {
                        throw new IllegalStateException(e);
                    }
                }, pool));
            }
            List<HttpResponse<String>> responses = calls.stream().map(CompletableFuture::join).toList();

            assertThat(responses).allMatch(r -> r.statusCode() == 200);
            assertThat(upstream.hits(mainKey())).isEqualTo(3);
            assertThat(responses).allMatch(r -> r.headers().firstValue("X-KeyPool-Channel").orElse("").equals("backup"));
            assertThat(main().breaker().state()).isEqualTo(BreakerState.OPEN);
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void should_show_breaker_figures_and_keys_in_admin_status() throws Exception {
        tripMain();

        HttpResponse<String> denied = get("/admin/status");
        assertThat(denied.statusCode()).isEqualTo(401);
        HttpResponse<String> r = getWithToken("/admin/status", "admin-test-token");

        assertThat(r.statusCode()).isEqualTo(200);
        JsonNode main = null;
        for (JsonNode channel : new ObjectMapper().readTree(r.body()).get("channels")) {
            main = channel.get("name").asText().equals(testName()) ? channel : main;
        }
        assertThat(main).as("channel %s in /admin/status", testName()).isNotNull();
        assertThat(main.get("breaker").get("state").asText()).isEqualTo("OPEN");
        assertThat(main.get("breaker").get("trippedBy").asText()).isEqualTo("consecutive_fail");
        assertThat(main.get("breaker").get("nextAttemptAt").asText()).isEqualTo(clock.instant().plusSeconds(30).toString());
        assertThat(main.get("fallback").get(0).asText()).isEqualTo("backup");
        JsonNode key = main.get("keys").get(0);
        assertThat(key.get("fingerprint").asText()).hasSize(16);
        assertThat(key.get("failureCount").asInt()).isEqualTo(1);
        assertThat(r.body()).doesNotContain(mainKey()).doesNotContain("sk-backup-1");
    }
}
