package dev.keypool.it;

import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;

import dev.keypool.breaker.BreakerState;
import dev.keypool.gateway.Channel;
import dev.keypool.pool.Fingerprint;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Keys' request and token limits are kept by the gateway, before the provider has to refuse anything. The tests share
 * one gateway, each on a channel of its own.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class QuotaTest extends GatewayTestSupport {

    /** alpha, and each test's own channel tokens, named after the test and serving one model of that name. */
    @Override
    protected String keypoolYaml() {
        StringBuilder yaml = new StringBuilder("""
                channels:
                  - name: alpha
                    baseUrl: UPSTREAM
                    models: [gpt-test]
                    keys:
                      - key: sk-alpha-1
                        rpm: 2
                      - key: sk-alpha-2
                        rpm: 1
                """);
        for (String test : testNames()) {
            yaml.append("""
                      - name: %1$s
                        baseUrl: UPSTREAM
                        models: [%1$s]
                        keys:
                          - key: sk-tokens-1
                            tpm: 1000
                    """.formatted(test));
        }
        return yaml.toString();
    }

    /** This test's channel tokens. */
    private Channel tokens() {
        return channel(testName());
    }

    @Test
    void should_answer_quota_exhausted_instead_of_sending_a_call_past_a_limit() throws Exception {
        clock.set(Instant.parse("2026-11-30T10:00:00.500Z"));
        for (int i = 0; i < 3; i++) {
            assertThat(chat("gpt-test").statusCode()).isEqualTo(200);
        }

        HttpResponse<String> fourth = chat("gpt-test");

        assertThat(fourth.statusCode()).isEqualTo(429);
        assertThat(fourth.body()).contains("\"code\":\"quota_exhausted\"").contains("alpha at quota");
        // the oldest call leaves the 60 s window at 10:01:01, 61 s from now at the latest
        assertThat(fourth.headers().firstValue("Retry-After")).contains("61");
        assertThat(upstream.hits("sk-alpha-1")).isEqualTo(2);
        assertThat(upstream.hits("sk-alpha-2")).isEqualTo(1);
        // held back by the gateway's own accounting: nothing against the channel
        assertThat(channel("alpha").breaker().state()).isEqualTo(BreakerState.CLOSED);

        clock.advance(Duration.ofSeconds(61));
        assertThat(chat("gpt-test").statusCode()).isEqualTo(200);
    }

    @Test
    void should_replace_a_streams_estimate_with_the_usage_it_reports() throws Exception {
        String body = "{\"model\":\"" + testName() + "\",\"stream\":true,\"max_tokens\":500,"
                + "\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}";

        HttpResponse<String> r = post("/v1/chat/completions", body);

        assertThat(r.body()).contains("data: [DONE]");
        var key = tokens().pool().find(Fingerprint.of("sk-tokens-1")).orElseThrow();
        // the fake's usage chunk: 11 prompt + 5 completion tokens, not the 500 reserved for the answer
        assertThat(tokens().pool().quotaOf(key).use().get(0).used()).isEqualTo(16);
    }

    @Test
    void should_count_the_streamed_text_of_a_stream_that_reports_no_usage() throws Exception {
        // the client turned the usage chunk off: the provider's stream says nothing of its tokens
        String body = "{\"model\":\"" + testName() + "\",\"stream\":true,\"stream_options\":{\"include_usage\":false},"
                + "\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}";

        HttpResponse<String> r = post("/v1/chat/completions", body);

        assertThat(r.body()).contains("data: [DONE]").doesNotContain("\"usage\"");
        var key = tokens().pool().find(Fingerprint.of("sk-tokens-1")).orElseThrow();
        // the answer "tok0 tok1 tok2 tok3 tok4 " counted, not the 256 tokens reserved for it
        long completion = key.stats().completionTokens();
        assertThat(completion).isBetween(5L, 20L);
        long used = tokens().pool().quotaOf(key).use().get(0).used();
        assertThat(used).isEqualTo(key.stats().promptTokens() + completion);
        assertThat(used).isLessThan(256);
    }

    @Test
    void should_reserve_the_estimate_and_keep_the_real_usage() throws Exception {
        // a prompt of about 600 tokens with an answer of at most 100: the estimate fits once into 1000
        String big = "word ".repeat(600);
        String body = "{\"model\":\"" + testName() + "\",\"max_tokens\":100,\"messages\":[{\"role\":\"user\",\"content\":\"" + big + "\"}]}";

        assertThat(post("/v1/chat/completions", body).statusCode()).isEqualTo(200);
        // the provider counted 18 tokens (11 prompt + 7 completion): that, not the estimate, stays counted
        var key = tokens().pool().find(Fingerprint.of("sk-tokens-1")).orElseThrow();
        assertThat(tokens().pool().quotaOf(key).use()).singleElement()
                .satisfies(use -> assertThat(use.used()).isEqualTo(18));
        assertThat(post("/v1/chat/completions", body).statusCode()).isEqualTo(200);
        assertThat(upstream.hits("sk-tokens-1")).isEqualTo(2);
    }
}
