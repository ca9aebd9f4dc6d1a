package dev.keypool.it;

import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

import dev.keypool.gateway.Channel;
import dev.keypool.pool.Fingerprint;
import dev.keypool.pool.KeyState;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Key rotation, cooldown and disabling inside one channel, over real HTTP through the real routes. The tests share one
 * gateway, each on a channel of its own: its keys' states, counters and rotation are the test's alone.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class KeyRotationTest extends GatewayTestSupport {

    /** Each test's own channel, named after it and serving one model of the same name, with the same three keys. */
    @Override
    protected String keypoolYaml() {
        StringBuilder yaml = new StringBuilder("channels:\n");
        for (String test : testNames()) {
            yaml.append("""
                      - name: %1$s
                        baseUrl: UPSTREAM
                        models: [%1$s]
                        maxRetries: 3
                        cooldown: 45s
                        disableAfter: 2
                        recovery: {enabled: false}
                        keys:
                          - key: sk-alpha-1
                          - key: sk-alpha-2
                          - key: sk-alpha-3
                    """.formatted(test));
        }
        return yaml.toString();
    }

    /** This test's channel. */
    private Channel alpha() {
        return channel(testName());
    }

    /** A chat request for this test's channel. */
    private HttpResponse<String> chat() throws Exception {
        return chat(testName());
    }

    @Test
    void should_rotate_keys_round_robin_in_order_and_fairly() throws Exception {
        for (int i = 0; i < 30; i++) {
            HttpResponse<String> r = chat();
            assertThat(r.statusCode()).isEqualTo(200);
        }
        List<String> order = upstream.received().stream().map(x -> x.key()).limit(6).toList();
        assertThat(order).containsExactly("sk-alpha-1", "sk-alpha-2", "sk-alpha-3", "sk-alpha-1", "sk-alpha-2", "sk-alpha-3");
        assertThat(upstream.hits("sk-alpha-1")).isEqualTo(10);
        assertThat(upstream.hits("sk-alpha-2")).isEqualTo(10);
        assertThat(upstream.hits("sk-alpha-3")).isEqualTo(10);
    }

    @Test
    void should_answer_with_keypool_headers_and_the_upstream_body_unchanged() throws Exception {
        HttpResponse<String> r = chat();

        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(r.body()).startsWith("{\"id\":\"chatcmpl-fake-1\",\"object\":\"chat.completion\"");
        assertThat(r.headers().firstValue("X-KeyPool-Channel")).contains(testName());
        assertThat(r.headers().firstValue("X-KeyPool-Key")).contains(Fingerprint.of("sk-alpha-1"));
        assertThat(r.headers().firstValue("X-KeyPool-Attempts")).contains("1");
        assertThat(r.headers().firstValue("X-Fallback-Level")).contains("0");
        assertThat(r.headers().firstValue("Content-Type")).hasValueSatisfying(v -> assertThat(v).startsWith("application/json"));
        // one whole body with its length, not a chunked copy of it
        assertThat(r.headers().firstValue("Content-Length")).contains(String.valueOf(r.body().getBytes(UTF_8).length));
        assertThat(r.headers().firstValue("Transfer-Encoding")).isEmpty();
        // upstream response headers stay with the gateway
        assertThat(r.headers().firstValue("X-Upstream-Secret-Header")).isEmpty();
    }

    @Test
    void should_count_the_tokens_of_the_answers_top_level_usage_on_its_key() throws Exception {
        // a "usage" inside the choices is content, not the provider's accounting: only the top-level one counts
        upstream.answer("sk-alpha-1", 200, null, "{\"id\":\"x\",\"choices\":[{\"message\":{\"role\":\"assistant\","
                + "\"content\":\"hi\",\"usage\":{\"prompt_tokens\":999}}}],"
                + "\"usage\":{\"prompt_tokens\":13,\"completion_tokens\":4,\"total_tokens\":17},\"system_fingerprint\":null}");
        upstream.answer("sk-alpha-2", 200, null, "not json at all");

        assertThat(chat().statusCode()).isEqualTo(200);
        HttpResponse<String> notJson = chat();

        var first = alpha().pool().find(Fingerprint.of("sk-alpha-1")).orElseThrow().stats();
        assertThat(first.promptTokens()).isEqualTo(13);
        assertThat(first.completionTokens()).isEqualTo(4);
        // a 200 the gateway cannot read is still the provider's answer: passed on, counted, no tokens
        assertThat(notJson.statusCode()).isEqualTo(200);
        assertThat(notJson.body()).isEqualTo("not json at all");
        var second = alpha().pool().find(Fingerprint.of("sk-alpha-2")).orElseThrow().stats();
        assertThat(second.successCount()).isEqualTo(1);
        assertThat(second.promptTokens()).isZero();
    }

    @Test
    void should_cool_key_on_429_and_serve_with_the_next_key() throws Exception {
        upstream.answer("sk-alpha-1", 429, "20", null);

        HttpResponse<String> r = chat();

        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(r.headers().firstValue("X-KeyPool-Key")).contains(Fingerprint.of("sk-alpha-2"));
        assertThat(r.headers().firstValue("X-KeyPool-Attempts")).contains("2");
        var key1 = alpha().pool().find(Fingerprint.of("sk-alpha-1")).orElseThrow();
        assertThat(alpha().pool().stateOf(key1)).isEqualTo(KeyState.COOLING);
        assertThat(alpha().pool().coolingUntil(key1)).contains(clock.instant().plusSeconds(20));
        assertThat(logs.messages(org.apache.logging.log4j.Level.INFO))
                .contains("Key " + Fingerprint.of("sk-alpha-1") + "(" + testName() + ") cooling 20s after 429");
    }

    @Test
    void should_keep_a_cooling_key_out_for_exactly_retry_after_then_use_it_again() throws Exception {
        upstream.answer("sk-alpha-1", 429, "20", null);
        chat();
        upstream.healthy("sk-alpha-1");
        upstream.clear();

        clock.advance(Duration.ofSeconds(19));
        for (int i = 0; i < 4; i++) {
            assertThat(chat().statusCode()).isEqualTo(200);
        }
        assertThat(upstream.hits("sk-alpha-1")).isZero();

        clock.advance(Duration.ofSeconds(1));
        // back in rotation: within two rounds of the three keys it serves again
        for (int i = 0; i < 6 && upstream.hits("sk-alpha-1") == 0; i++) {
            assertThat(chat().statusCode()).isEqualTo(200);
        }
        assertThat(upstream.hits("sk-alpha-1")).isEqualTo(1);
    }

    @Test
    void should_use_the_channel_cooldown_when_429_has_no_retry_after() throws Exception {
        upstream.answer("sk-alpha-1", 429);
        chat();

        var key1 = alpha().pool().find(Fingerprint.of("sk-alpha-1")).orElseThrow();
        assertThat(alpha().pool().coolingUntil(key1)).contains(clock.instant().plusSeconds(45));
    }

    @Test
    void should_answer_503_with_retry_after_when_every_key_is_rate_limited() throws Exception {
        upstream.answer("sk-alpha-1", 429, "30", null).answer("sk-alpha-2", 429, "10", null).answer("sk-alpha-3", 429, "50", null);

        HttpResponse<String> r = chat();

        assertThat(r.statusCode()).isEqualTo(503);
        assertThat(r.headers().firstValue("Retry-After")).contains("10");
        assertThat(r.body()).contains("\"type\":\"service_unavailable_error\"").contains(testName());
        assertThat(upstream.totalHits()).isEqualTo(3);

        // nothing usable now: answered at once, no upstream call
        HttpResponse<String> again = chat();
        assertThat(again.statusCode()).isEqualTo(503);
        assertThat(upstream.totalHits()).isEqualTo(3);
    }

    @Test
    void should_disable_a_key_at_once_on_401() throws Exception {
        upstream.answer("sk-alpha-1", 401);

        HttpResponse<String> r = chat();

        assertThat(r.statusCode()).isEqualTo(200);
        var key1 = alpha().pool().find(Fingerprint.of("sk-alpha-1")).orElseThrow();
        assertThat(alpha().pool().stateOf(key1)).isEqualTo(KeyState.DISABLED);
        assertThat(logs.messages(org.apache.logging.log4j.Level.WARN))
                .contains("Key " + Fingerprint.of("sk-alpha-1") + "(" + testName() + ") disabled after 401 from upstream");
        clock.advance(Duration.ofHours(1));
        for (int i = 0; i < 4; i++) {
            chat();
        }
        assertThat(upstream.hits("sk-alpha-1")).isEqualTo(1);
    }

    @Test
    void should_disable_a_key_after_disable_after_consecutive_5xx() throws Exception {
        upstream.answer("sk-alpha-1", 503);

        // every request is served by another key, until alpha-1 has failed twice in a row and is disabled
        for (int i = 0; i < 9 && upstream.hits("sk-alpha-1") < 2; i++) {
            assertThat(chat().statusCode()).isEqualTo(200);
        }
        assertThat(upstream.hits("sk-alpha-1")).isEqualTo(2);

        var key1 = alpha().pool().find(Fingerprint.of("sk-alpha-1")).orElseThrow();
        assertThat(alpha().pool().stateOf(key1)).isEqualTo(KeyState.DISABLED);
        assertThat(logs.messages(org.apache.logging.log4j.Level.WARN))
                .contains("Key " + Fingerprint.of("sk-alpha-1") + "(" + testName() + ") disabled after 2 consecutive failures (last: 503)");
    }

    @Test
    void should_retry_timeouts_and_reset_connections_on_other_keys() throws Exception {
        upstream.reset("sk-alpha-1").answer("sk-alpha-2", 502);

        HttpResponse<String> r = chat();

        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(r.headers().firstValue("X-KeyPool-Key")).contains(Fingerprint.of("sk-alpha-3"));
        assertThat(r.headers().firstValue("X-KeyPool-Attempts")).contains("3");
        assertThat(alpha().pool().find(Fingerprint.of("sk-alpha-1")).orElseThrow().stats().failureCount()).isEqualTo(1);
    }

    @Test
    void should_pass_a_400_back_unchanged_and_burn_no_key() throws Exception {
        String upstreamError = "{\"error\":{\"message\":\"bad temperature\",\"type\":\"invalid_request_error\"}}";
        upstream.answer("sk-alpha-1", 400, null, upstreamError);

        HttpResponse<String> r = chat();

        assertThat(r.statusCode()).isEqualTo(400);
        assertThat(r.body()).isEqualTo(upstreamError);
        assertThat(r.headers().firstValue("Content-Length")).contains(String.valueOf(upstreamError.length()));
        // the answer came from a key like any other, and says which
        assertThat(r.headers().firstValue("X-KeyPool-Channel")).contains(testName());
        assertThat(r.headers().firstValue("X-KeyPool-Key")).contains(Fingerprint.of("sk-alpha-1"));
        assertThat(r.headers().firstValue("X-KeyPool-Attempts")).contains("1");
        assertThat(r.headers().firstValue("X-Fallback-Level")).contains("0");
        assertThat(upstream.totalHits()).isEqualTo(1);
        var key1 = alpha().pool().find(Fingerprint.of("sk-alpha-1")).orElseThrow();
        assertThat(alpha().pool().stateOf(key1)).isEqualTo(KeyState.ACTIVE);
        assertThat(key1.stats().failureCount()).isZero();
        assertThat(key1.stats().consecutiveFailures()).isZero();
        assertThat(key1.inFlight()).isZero();
    }

    @Test
    void should_never_call_the_same_key_twice_for_one_request() throws Exception {
        upstream.answer("sk-alpha-1", 500).answer("sk-alpha-2", 500).answer("sk-alpha-3", 500);

        HttpResponse<String> r = chat();

        assertThat(r.statusCode()).isEqualTo(503);
        assertThat(upstream.hitsByKey()).containsOnlyKeys("sk-alpha-1", "sk-alpha-2", "sk-alpha-3");
        assertThat(upstream.hitsByKey().values()).extracting(AtomicInteger::get).containsOnly(1);
    }

    @Test
    void should_send_only_the_body_and_the_pool_key_upstream() throws Exception {
        chat();

        var received = upstream.received().get(0);
        assertThat(received.headers().get("Authorization")).isEqualTo("Bearer sk-alpha-1");
        assertThat(received.body()).isEqualTo(chatBody(testName()));
        assertThat(received.path()).isEqualTo("/v1/chat/completions");
        assertThat(received.headers().names()).noneMatch(h -> h.toLowerCase().startsWith("camel"));
        assertThat(received.headers().getAll("Authorization")).hasSize(1);
    }
}
