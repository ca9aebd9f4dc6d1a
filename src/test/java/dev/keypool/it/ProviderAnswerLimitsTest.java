package dev.keypool.it;

import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Properties;
import java.util.concurrent.TimeUnit;

import dev.keypool.pool.Fingerprint;
import org.apache.logging.log4j.Level;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A provider's answer is bounded (keypool.max-answer-bytes, keypool.max-sse-event-bytes, keypool.max-stream-seconds):
 * past a bound the attempt fails as a provider error, counted against its key, and the walk goes on (another key,
 * then the fallback channel) while nothing has reached the client; after a stream's first byte the client gets an
 * error event.
 */
class ProviderAnswerLimitsTest extends GatewayTestSupport {

    private static final int MAX_ANSWER = 1 << 20;
    private static final int MAX_EVENT = 64 * 1024;
    /**
     * An answer still coming when the gateway decides to cut it: far more than its connection reads in one turn of
     * its event loop (up to 16 reads of 64 KiB), for an answer that ended meanwhile is left to the pool, not cut.
     */
    private static final int HUGE_ANSWER = 8 * MAX_ANSWER;

    @Override
    protected String keypoolYaml() {
        return """
                channels:
                  - name: alpha
                    baseUrl: UPSTREAM
                    models: [gpt-test]
                    maxRetries: 1
                    fallback: [beta]
                    keys:
                      - key: sk-alpha-1
                      - key: sk-alpha-2
                  - name: beta
                    baseUrl: UPSTREAM
                    models: [beta-model]
                    keys:
                      - key: sk-beta-1
                """;
    }

    @Override
    protected Properties overrideProperties() {
        Properties p = super.overrideProperties();
        p.put("keypool.max-answer-bytes", String.valueOf(MAX_ANSWER));
        p.put("keypool.max-sse-event-bytes", String.valueOf(MAX_EVENT));
        p.put("keypool.max-stream-seconds", "1");
        return p;
    }

    @Test
    void should_walk_on_when_a_plain_answer_is_over_the_limit() throws Exception {
        upstream.hugeAnswer("sk-alpha-1", HUGE_ANSWER).hugeAnswer("sk-alpha-2", HUGE_ANSWER);

        HttpResponse<String> response = chat("gpt-test");

        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(response.headers().firstValue("X-KeyPool-Channel")).contains("beta");
        assertThat(response.body()).contains("chat.completion");
        assertBothAlphaKeysFailedOnce();
        assertThat(logs.messages(Level.INFO)).anyMatch(m -> m.contains("Request fell back alpha -> beta"));
        // the provider connections are closed, not read to the end of the answers
        await().atMost(Duration.ofSeconds(10)).until(() -> upstream.hugeAnswersCut() == 2);
    }

    @Test
    void should_walk_on_when_a_streams_first_event_is_over_the_limit() throws Exception {
        upstream.hugeEvent("sk-alpha-1", 0, 2 * MAX_EVENT).hugeEvent("sk-alpha-2", 0, 2 * MAX_EVENT);

        HttpResponse<String> response = stream();

        // the gateway's error, if any, names what each channel failed with
        assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
        assertThat(response.headers().firstValue("X-KeyPool-Channel")).contains("beta");
        assertThat(response.body()).contains("data: [DONE]").doesNotContain("x".repeat(1000));
        assertBothAlphaKeysFailedOnce();
    }

    @Test
    void should_end_a_stream_with_an_error_event_when_an_event_after_its_first_byte_is_over_the_limit() throws Exception {
        upstream.hugeEvent("sk-alpha-1", 2, 2 * MAX_EVENT).hugeEvent("sk-alpha-2", 2, 2 * MAX_EVENT);

        HttpResponse<String> response = stream();

        assertThat(response.headers().firstValue("X-KeyPool-Channel")).contains("alpha");
        assertThat(response.body()).contains("tok0", "tok1", "stream_interrupted")
                .doesNotContain("data: [DONE]").doesNotContain("x".repeat(1000));
        assertThat(alphaFailures()).isEqualTo(1);
        assertThat(logs.messages(Level.WARN)).anyMatch(m -> m.contains("stream event over " + MAX_EVENT + " bytes"));
    }

    @Test
    void should_cut_a_stream_that_goes_on_past_its_deadline_with_an_error_event() throws Exception {
        upstream.endlessStream("sk-alpha-1").endlessStream("sk-alpha-2");

        HttpResponse<String> response = stream();

        assertThat(response.headers().firstValue("X-KeyPool-Channel")).contains("alpha");
        assertThat(response.body()).contains("tok0", "stream_interrupted").doesNotContain("data: [DONE]");
        assertThat(alphaFailures()).isEqualTo(1);
        // the provider's connection is closed, not left streaming
        await().atMost(Duration.ofSeconds(10)).until(() -> upstream.streamsCancelled() == 1);
    }

    private void assertBothAlphaKeysFailedOnce() {
        assertThat(upstream.hits("sk-alpha-1")).isEqualTo(1);
        assertThat(upstream.hits("sk-alpha-2")).isEqualTo(1);
        assertThat(failures("sk-alpha-1")).isEqualTo(1);
        assertThat(failures("sk-alpha-2")).isEqualTo(1);
    }

    /** Failures counted on the alpha keys together (a stream that started stays on its one key). */
    private long alphaFailures() {
        return failures("sk-alpha-1") + failures("sk-alpha-2");
    }

    private long failures(String key) {
        return channel("alpha").pool().find(Fingerprint.of(key)).orElseThrow().stats().failureCount();
    }

    private HttpResponse<String> stream() throws Exception {
        HttpRequest request = HttpRequest.newBuilder(URI.create(url("/v1/chat/completions")))
                .header("Content-Type", "application/json").timeout(Duration.ofSeconds(30))
                .POST(HttpRequest.BodyPublishers.ofString(
                        "{\"model\":\"gpt-test\",\"stream\":true,\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}"))
                .build();
        // the request's timeout ends with the head: the whole stream is waited for a bounded time here
        return http.sendAsync(request, HttpResponse.BodyHandlers.ofString()).get(20, TimeUnit.SECONDS);
    }
}
