package dev.keypool.it;

import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A provider that enforces 12 requests per minute on each of four keys, exactly, on the same clock as the
 * gateway: a request a second for two simulated minutes, twice what the keys allow together, all answered at once
 * (maxWait 0); the provider never has to refuse one, and the gateway lets through exactly what the keys allow. The
 * tests share one gateway, each on a channel of its own: the second to run sets the clock back to 10:00 on a channel
 * nothing has used yet.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class QuotaThroughputTest extends GatewayTestSupport {

    @Override
    protected String keypoolYaml() {
        return """
                channels:
                  - name: alpha
                    baseUrl: UPSTREAM
                    models: [gpt-test]
                    keys:
                      - key: sk-q-1
                        rpm: 12
                      - key: sk-q-2
                        rpm: 12
                      - key: sk-q-3
                        rpm: 12
                      - key: sk-q-4
                        rpm: 12
                  - name: tokens
                    baseUrl: UPSTREAM
                    models: [gpt-tokens]
                    keys:
                      - key: sk-t-1
                        tpm: 2000
                queue:
                  maxWait: 0s
                """;
    }

    @Test
    void should_use_the_keys_up_to_their_combined_limit_without_a_single_provider_429() throws Exception {
        upstream.keepRequests(false);
        for (int k = 1; k <= 4; k++) {
            upstream.limitRpm("sk-q-" + k, 12, clock);
        }
        Instant start = Instant.parse("2026-11-30T10:00:00.500Z");
        int accepted = 0;
        int refused = 0;
        String firstRetryAfter = null;

        for (int second = 0; second < 120; second++) {
            clock.set(start.plusSeconds(second));
            HttpResponse<String> r = chat("gpt-test");
            if (r.statusCode() == 200) {
                accepted++;
            } else {
                assertThat(r.statusCode()).as(r.body()).isEqualTo(429);
                assertThat(r.body()).contains("\"code\":\"quota_exhausted\"");
                int retryAfter = Integer.parseInt(r.headers().firstValue("Retry-After").orElseThrow());
                assertThat(retryAfter).isBetween(1, 61);
                if (firstRetryAfter == null) {
                    firstRetryAfter = second + ":" + retryAfter;
                }
                refused++;
            }
        }

        assertThat(upstream.refusedByLimit()).isZero();
        // 48 in each minute: seconds 0 to 47, then, as each of those calls leaves the window, 61 to 108
        assertThat(accepted).isEqualTo(96);
        assertThat(refused).isEqualTo(24);
        assertThat(upstream.totalHits()).isEqualTo(96);
        // the 49th request comes at 10:00:48.5; the first call leaves the window at 10:01:01: 12.5 s, said as 13
        assertThat(firstRetryAfter).isEqualTo("48:13");
    }

    /**
     * Token limits likewise: large prompts are reserved at their estimate (about 1,000 tokens each) and settled at
     * the 18 tokens the provider reports, so a key at 2,000 tokens per minute serves many of them without the
     * provider, which counts its own 18 per call, ever refusing one.
     */
    @Test
    void should_keep_a_token_limit_with_large_prompts_without_a_provider_429() throws Exception {
        upstream.keepRequests(false).limitTpm("sk-t-1", 2_000, clock);
        clock.set(Instant.parse("2026-11-30T10:00:00.500Z"));
        String prompt = "word ".repeat(800);
        String body = "{\"model\":\"gpt-tokens\",\"max_tokens\":100,\"messages\":[{\"role\":\"user\",\"content\":\""
                + prompt + "\"}]}";
        int accepted = 0;
        int refused = 0;

        for (int i = 0; i < 150; i++) {
            HttpResponse<String> r = post("/v1/chat/completions", body);
            if (r.statusCode() == 200) {
                accepted++;
            } else {
                assertThat(r.body()).contains("\"code\":\"quota_exhausted\"");
                refused++;
            }
        }

        assertThat(upstream.refusedByLimit()).isZero();
        // 18 per call settled, and one more reservation of ~900 must still fit: (2000 - 900) / 18 = 61 calls or so
        assertThat(accepted).isBetween(50, 111);
        assertThat(accepted + refused).isEqualTo(150);
        assertThat(upstream.hits("sk-t-1")).isEqualTo(accepted);
    }
}
