package dev.keypool.it;

import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import dev.keypool.pool.Fingerprint;
import dev.keypool.quota.CapacityQueue;
import dev.keypool.camel.pipeline.CapacityWait;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * /observe/metrics after a scripted sequence (a success, a 429, a breaker trip with a fallback, a stream, a request
 * waiting for quota room) shows each KeyPool family of design §10 with the values the sequence made.
 */
class MetricsTest extends GatewayTestSupport {

    private static final String ONE = Fingerprint.of("sk-alpha-1");
    private static final String TWO = Fingerprint.of("sk-alpha-2");
    private static final String WAIT = Fingerprint.of("sk-wait-1");

    @Override
    protected String keypoolYaml() {
        return """
                channels:
                  - name: alpha
                    baseUrl: UPSTREAM
                    models: [gpt-test]
                    pricing:
                      gpt-test: {input: 2.0, output: 4.0}
                    disableAfter: 1
                    breaker:
                      consecutiveFailThreshold: 1
                    keys:
                      - key: sk-alpha-1
                      - key: sk-alpha-2
                    fallback: [beta]
                  - name: beta
                    baseUrl: UPSTREAM
                    models: [gpt-beta]
                    keys:
                      - key: sk-beta-1
                  - name: gamma
                    baseUrl: UPSTREAM
                    models: ["*"]
                    keys:
                      - key: sk-wait-1
                        rpm: 1
                queue:
                  maxWait: 90s
                """;
    }

    @Test
    void should_show_each_family_after_a_scripted_sequence() throws Exception {
        // a success on key one (round robin starts there), then a 429 on key one served by key two
        assertThat(chat("gpt-test").statusCode()).isEqualTo(200);
        upstream.answer("sk-alpha-1", 429, "3600", null);
        assertThat(chat("gpt-test").headers().firstValue("X-KeyPool-Key")).contains(TWO);
        // a stream, for the time to first byte
        assertThat(post("/v1/chat/completions", "{\"model\":\"gpt-test\",\"stream\":true,\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}")
                .statusCode()).isEqualTo(200);
        // key two fails once: disabled (disableAfter 1), the breaker trips (consecutiveFailThreshold 1), beta serves
        // at level 1
        upstream.answer("sk-alpha-2", 500);
        HttpResponse<String> fellBack = chat("gpt-test");
        assertThat(fellBack.headers().firstValue("X-KeyPool-Channel")).contains("beta");
        // a model no channel lists by name (gamma serves "*"), and a second request for it waits for rpm room
        assertThat(chat("any-model").statusCode()).isEqualTo(200);
        CompletableFuture<HttpResponse<String>> waiting = CompletableFuture.supplyAsync(() -> {
            try {
                return chat("any-model");
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
        CapacityQueue queue = context.getRegistry().lookupByNameAndType("capacityWait", CapacityWait.class).queue();
        await().atMost(Duration.ofSeconds(10)).until(() -> queue.waiting() == 1);
        String whileWaiting = get("/observe/metrics").body();
        // the rpm window frees the key's call within 62 s; key one cools for an hour and the breaker, with no ACTIVE key, stays OPEN
        clock.advance(Duration.ofSeconds(62));
        assertThat(waiting.get(10, TimeUnit.SECONDS).statusCode()).isEqualTo(200);

        String metrics = get("/observe/metrics").body();

        assertThat(whileWaiting).contains("keypool_queue_waiting 1.0");
        assertThat(metrics).contains("keypool_queue_waiting 0.0")
                .contains("keypool_queue_wait_seconds_count 1")
                .contains("keypool_requests_total{channel=\"alpha\",model=\"gpt-test\",outcome=\"success\",tenant=\"none\"} 3.0")
                .contains("keypool_requests_total{channel=\"beta\",model=\"gpt-test\",outcome=\"success\",tenant=\"none\"} 1.0")
                .contains("keypool_requests_total{channel=\"gamma\",model=\"other\",outcome=\"success\",tenant=\"none\"} 2.0")
                .contains("keypool_fallbacks_total{from=\"alpha\",level=\"1\",to=\"beta\"} 1.0")
                // five upstream calls on alpha: success, 429, success, stream, 500 (key one was cooling)
                .contains("keypool_upstream_seconds_count{channel=\"alpha\"} 5")
                .contains("keypool_upstream_seconds_bucket{channel=\"alpha\",le=\"+Inf\"} 5")
                .contains("keypool_ttfb_seconds_count{channel=\"alpha\"} 1")
                // the fake reports 11 prompt and 7 completion tokens per plain answer, 11 and 5 for its stream of 5 events
                .contains("keypool_tokens_total{channel=\"alpha\",kind=\"prompt\",tenant=\"none\"} 33.0")
                .contains("keypool_tokens_total{channel=\"alpha\",kind=\"completion\",tenant=\"none\"} 19.0")
                .contains("keypool_key_state{channel=\"alpha\",key=\"" + ONE + "\"} 1.0")
                .contains("keypool_key_state{channel=\"alpha\",key=\"" + TWO + "\"} 2.0")
                .contains("keypool_key_state{channel=\"beta\",key=\"" + Fingerprint.of("sk-beta-1") + "\"} 0.0")
                .contains("keypool_key_quota_ratio{channel=\"gamma\",key=\"" + WAIT + "\",window=\"rpm\"} 1.0")
                .contains("keypool_breaker_state{channel=\"alpha\"} 1.0")
                .contains("keypool_breaker_state{channel=\"beta\"} 0.0")
                .doesNotContain("sk-alpha").doesNotContain("any-model");
        // (33 × 2 + 19 × 4) / 1M
        assertThat(metrics).contains("keypool_cost_usd_total{channel=\"alpha\",tenant=\"none\"} 1.42E-4");
    }

    @Test
    void should_count_the_gateways_own_refusals_by_their_code() throws Exception {
        assertThat(post("/v1/chat/completions", "{not json").statusCode()).isEqualTo(400);
        assertThat(chat("gpt-nowhere").statusCode()).isEqualTo(200);   // gamma serves any model

        String metrics = get("/observe/metrics").body();

        assertThat(metrics).contains("keypool_requests_total{channel=\"none\",model=\"none\",outcome=\"invalid_json\",tenant=\"none\"} 1.0")
                .as("no request waited yet").contains("keypool_queue_wait_seconds_count 0");
    }
}
