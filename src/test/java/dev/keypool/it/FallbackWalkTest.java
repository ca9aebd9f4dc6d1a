package dev.keypool.it;

import java.net.http.HttpResponse;
import java.time.Duration;

import dev.keypool.breaker.BreakerState;
import org.apache.logging.log4j.Level;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The fallback walk of design §3: in order, skipping OPEN channels, one level deep, never a channel twice. The tests
 * share one gateway, each on a chain of channels of its own.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class FallbackWalkTest extends GatewayTestSupport {

    /**
     * Each test's own chain a -> [b, c], named after the test: a serves the test's model, b one of its own (b and c fall
     * back to a), c takes the test's model as c-model and has two keys.
     */
    @Override
    protected String keypoolYaml() {
        StringBuilder yaml = new StringBuilder("channels:\n");
        for (String test : testNames()) {
            yaml.append("""
                      - name: %1$s-a
                        baseUrl: UPSTREAM
                        models: [%1$s]
                        maxRetries: 0
                        fallback: [%1$s-b, %1$s-c]
                        keys:
                          - key: sk-a-1
                      - name: %1$s-b
                        baseUrl: UPSTREAM
                        models: [%1$s-b-model]
                        maxRetries: 0
                        fallback: [%1$s-a]
                        keys:
                          - key: sk-b-1
                      - name: %1$s-c
                        baseUrl: UPSTREAM
                        models: [c-model]
                        modelMap: {%1$s: c-model}
                        fallback: [%1$s-a]
                        keys:
                          - key: sk-c-1
                          - key: sk-c-2
                    """.formatted(test));
        }
        return yaml.toString();
    }

    /** This test's channel a, b or c. */
    private String a() {
        return testName() + "-a";
    }

    private String b() {
        return testName() + "-b";
    }

    private String c() {
        return testName() + "-c";
    }

    /** A chat request for the model of this test's chain. */
    private HttpResponse<String> chatChainModel() throws Exception {
        return chat(testName());
    }

    @Test
    void should_serve_from_c_when_a_is_open_and_b_is_exhausted() throws Exception {
        channel(a()).breaker().forceOpen("test");
        upstream.answer("sk-b-1", 429, "60", null);

        HttpResponse<String> r = chatChainModel();

        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(r.headers().firstValue("X-KeyPool-Channel")).contains(c());
        assertThat(r.headers().firstValue("X-Fallback-Level")).contains("2");
        assertThat(upstream.hits("sk-a-1")).isZero();
        assertThat(upstream.hits("sk-b-1")).isEqualTo(1);
        // c serves the request under its own model name
        assertThat(upstream.received().get(1).body()).contains("\"model\":\"c-model\"");
        assertThat(logs.messages(Level.INFO)).contains("Request fell back " + a() + " -> " + c() + " (level 2): open");
    }

    /**
     * A channel visited after one that failed retries on its other keys as the first channel would: a failed visit
     * leaves no record of its failure having been handled, which would stop the next channel's retries.
     */
    @Test
    void should_retry_on_another_key_of_the_channel_after_a_channel_that_failed() throws Exception {
        channel(b()).breaker().forceOpen("test");
        upstream.answer("sk-a-1", 500).answer("sk-c-1", 429, "60", null);

        HttpResponse<String> r = chatChainModel();

        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(r.headers().firstValue("X-KeyPool-Channel")).contains(c());
        assertThat(r.headers().firstValue("X-KeyPool-Attempts")).contains("3");
        assertThat(upstream.hits("sk-a-1")).isEqualTo(1);
        assertThat(upstream.hits("sk-c-1")).isEqualTo(1);
        assertThat(upstream.hits("sk-c-2")).isEqualTo(1);
    }

    @Test
    void should_walk_a_cycle_in_the_configuration_only_once() throws Exception {
        // b falls back to a, and a to b: a request for b's model tries b, then a, then stops
        upstream.answer("sk-b-1", 500).answer("sk-a-1", 500);

        HttpResponse<String> r = chat(b() + "-model");

        assertThat(r.statusCode()).isEqualTo(503);
        assertThat(upstream.hits("sk-b-1")).isEqualTo(1);
        assertThat(upstream.hits("sk-a-1")).isEqualTo(1);
        assertThat(upstream.hits("sk-c-1")).isZero();   // a's own fallback list is not followed
        assertThat(r.body()).contains(b() + " failed (last: 500)").contains(a() + " failed (last: 500)");
    }

    @Test
    void should_serve_from_the_first_fallback_when_the_primary_fails() throws Exception {
        upstream.answer("sk-a-1", 502);

        HttpResponse<String> r = chatChainModel();

        assertThat(r.headers().firstValue("X-KeyPool-Channel")).contains(b());
        assertThat(r.headers().firstValue("X-Fallback-Level")).contains("1");
        assertThat(r.headers().firstValue("X-KeyPool-Attempts")).contains("2");
        assertThat(logs.messages(Level.INFO)).contains("Request fell back " + a() + " -> " + b() + " (level 1): failed (last: 502)");
    }

    @Test
    void should_answer_503_at_once_without_upstream_calls_when_every_channel_is_open() throws Exception {
        channel(a()).breaker().forceOpen("test");
        channel(b()).breaker().forceOpen("test");
        channel(c()).breaker().forceOpen("test");

        HttpResponse<String> r = chatChainModel();

        assertThat(r.statusCode()).isEqualTo(503);
        // forced open by an operator: no time at which they try again, so the 60 s default
        assertThat(r.headers().firstValue("Retry-After")).contains("60");
        assertThat(r.body()).contains(a() + " open").contains(b() + " open").contains(c() + " open");
        assertThat(upstream.totalHits()).isZero();
        assertThat(channel(a()).breaker().state()).isEqualTo(BreakerState.OPEN);
    }

    @Test
    void should_tell_the_client_to_retry_when_the_first_open_channel_of_the_chain_half_opens() throws Exception {
        // tripped, not forced: each breaker tries HALF_OPEN 30 s after its trip (keys stay ACTIVE)
        channel(a()).breaker().onPoolExhausted();
        clock.advance(Duration.ofSeconds(10));
        channel(b()).breaker().onPoolExhausted();
        channel(c()).breaker().onPoolExhausted();
        clock.advance(Duration.ofSeconds(5));

        HttpResponse<String> r = chatChainModel();

        assertThat(r.statusCode()).isEqualTo(503);
        // a half-opens first, 30 s after its trip, which is 15 s from now (b and c: 25 s)
        assertThat(r.headers().firstValue("Retry-After")).contains("15");
        assertThat(upstream.totalHits()).isZero();
    }
}
