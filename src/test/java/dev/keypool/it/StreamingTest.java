package dev.keypool.it;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.stream.Stream;

import dev.keypool.gateway.Channel;
import dev.keypool.pool.ApiKey;
import dev.keypool.pool.Fingerprint;
import dev.langchain4j.model.chat.response.ChatResponse;
import dev.langchain4j.model.chat.response.StreamingChatResponseHandler;
import dev.langchain4j.model.openai.OpenAiStreamingChatModel;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * stream: true relayed event by event, with failover before the first byte and honesty after it. The tests share one
 * gateway, each on a channel of its own (its keys' states and counters are the test's alone) falling back to beta.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class StreamingTest extends GatewayTestSupport {

    /** Each test's own channel, named after it and serving one model of the same name, with beta behind it. */
    @Override
    protected String keypoolYaml() {
        StringBuilder yaml = new StringBuilder("""
                channels:
                  - name: beta
                    baseUrl: UPSTREAM
                    models: [beta-model]
                    keys:
                      - key: sk-beta-1
                """);
        for (String test : testNames()) {
            yaml.append("""
                      - name: %1$s
                        baseUrl: UPSTREAM
                        models: [%1$s]
                        fallback: [beta]
                        maxRetries: 1
                        keys:
                          - key: sk-alpha-1
                          - key: sk-alpha-2
                    """.formatted(test));
        }
        return yaml.toString();
    }

    /** This test's channel. */
    private Channel alpha() {
        return channel(testName());
    }

    private record Line(long atMs, String text) {
    }

    private record Streamed(HttpResponse<Stream<String>> response, List<Line> lines) {
        List<String> data() {
            return lines.stream().map(Line::text).filter(t -> t.startsWith("data:")).toList();
        }
    }

    private Streamed stream(String body) throws Exception {
        HttpRequest request = HttpRequest.newBuilder(URI.create(url("/v1/chat/completions")))
                .header("Content-Type", "application/json").timeout(Duration.ofSeconds(30))
                .POST(HttpRequest.BodyPublishers.ofString(body)).build();
        long start = System.nanoTime();
        HttpResponse<Stream<String>> response = http.send(request, HttpResponse.BodyHandlers.ofLines());
        List<Line> lines = new ArrayList<>();
        response.body().forEach(l -> lines.add(new Line((System.nanoTime() - start) / 1_000_000, l)));
        return new Streamed(response, lines);
    }

    private static String streamBody(String model) {
        return "{\"model\":\"" + model + "\",\"stream\":true,\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}";
    }

    @Test
    void should_deliver_the_first_event_before_the_upstream_sends_its_last() throws Exception {
        upstream.streamEvents(5, 100);

        Streamed s = stream(streamBody(testName()));

        assertThat(s.response().statusCode()).isEqualTo(200);
        assertThat(s.response().headers().firstValue("Content-Type")).contains("text/event-stream");
        List<Line> data = s.lines().stream().filter(l -> l.text().startsWith("data:")).toList();
        assertThat(data).hasSize(6);
        // events 100 ms apart upstream: relayed one by one, not in one block at the end
        assertThat(data.get(data.size() - 1).atMs() - data.get(0).atMs()).isGreaterThanOrEqualTo(300);
        assertThat(data.get(5).text()).isEqualTo("data: [DONE]");
    }

    @Test
    void should_fail_over_to_another_key_on_429_before_the_first_byte() throws Exception {
        upstream.answer("sk-alpha-1", 429, "30", null);

        Streamed s = stream(streamBody(testName()));

        assertThat(s.response().statusCode()).isEqualTo(200);
        assertThat(s.response().headers().firstValue("X-KeyPool-Key")).contains(Fingerprint.of("sk-alpha-2"));
        assertThat(s.response().headers().firstValue("X-KeyPool-Attempts")).contains("2");
        assertThat(s.data()).hasSize(6).last().isEqualTo("data: [DONE]");
        assertThat(s.data()).noneMatch(d -> d.contains("error"));
    }

    @Test
    void should_retry_on_another_key_when_a_200_stream_ends_before_its_first_event() throws Exception {
        upstream.cutStreamAfter("sk-alpha-1", 0);

        Streamed s = stream(streamBody(testName()));

        assertThat(s.response().headers().firstValue("X-KeyPool-Key")).contains(Fingerprint.of("sk-alpha-2"));
        assertThat(s.data()).hasSize(6).last().isEqualTo("data: [DONE]");
        // the retry sent the request again, not what the failed attempt had received
        assertThat(upstream.received()).hasSize(2);
        assertThat(upstream.received().get(1).body()).isEqualTo(upstream.received().get(0).body()).contains("\"messages\"");
    }

    @Test
    void should_pass_a_provider_400_back_as_json_instead_of_a_stream() throws Exception {
        String upstreamError = "{\"error\":{\"message\":\"stream_options not supported\",\"type\":\"invalid_request_error\"}}";
        upstream.answer("sk-alpha-1", 400, null, upstreamError);

        Streamed s = stream(streamBody(testName()));

        assertThat(s.response().statusCode()).isEqualTo(400);
        assertThat(s.response().headers().firstValue("Content-Type")).hasValueSatisfying(v -> assertThat(v).startsWith("application/json"));
        assertThat(s.response().headers().firstValue("X-KeyPool-Key")).contains(Fingerprint.of("sk-alpha-1"));
        assertThat(String.join("\n", s.lines().stream().map(Line::text).toList())).isEqualTo(upstreamError);
        // the request was wrong, not the key: nothing retried, nothing blamed
        assertThat(upstream.totalHits()).isEqualTo(1);
        assertThat(alpha().pool().find(Fingerprint.of("sk-alpha-1")).orElseThrow().stats().failureCount()).isZero();
    }

    @Test
    void should_fall_back_to_the_next_channel_before_the_first_byte() throws Exception {
        upstream.answer("sk-alpha-1", 503).answer("sk-alpha-2", 503);

        Streamed s = stream(streamBody(testName()));

        assertThat(s.response().statusCode()).isEqualTo(200);
        assertThat(s.response().headers().firstValue("X-KeyPool-Channel")).contains("beta");
        assertThat(s.response().headers().firstValue("X-Fallback-Level")).contains("1");
        assertThat(s.data()).hasSize(6).last().isEqualTo("data: [DONE]");
    }

    @Test
    void should_end_a_stream_cut_after_three_events_with_an_error_event() throws Exception {
        upstream.cutStreamAfter("sk-alpha-1", 3);

        Streamed s = stream(streamBody(testName()));

        assertThat(s.response().statusCode()).isEqualTo(200);
        List<String> data = s.data();
        assertThat(data).hasSize(4);
        assertThat(data.subList(0, 3)).allMatch(d -> d.contains("chat.completion.chunk"));
        assertThat(data.get(3)).startsWith("data: {\"error\":").contains("stream_interrupted");
        assertThat(data).doesNotContain("data: [DONE]");
        // no failover after the first byte: the other key was never called
        assertThat(upstream.hits("sk-alpha-2")).isZero();
        ApiKey key = alpha().pool().find(Fingerprint.of("sk-alpha-1")).orElseThrow();
        assertThat(key.stats().failureCount()).isEqualTo(1);
        assertThat(key.inFlight()).isZero();
    }

    @Test
    void should_count_usage_and_time_to_first_byte_without_showing_the_usage_chunk_to_a_client_that_did_not_ask() throws Exception {
        Streamed s = stream(streamBody(testName()));

        assertThat(s.data()).noneMatch(d -> d.contains("\"usage\""));
        assertThat(upstream.received().get(0).body()).contains("\"stream_options\":{\"include_usage\":true}");
        ApiKey key = alpha().pool().find(Fingerprint.of("sk-alpha-1")).orElseThrow();
        assertThat(key.stats().promptTokens()).isEqualTo(11);
        assertThat(key.stats().completionTokens()).isEqualTo(5);
        assertThat(key.stats().streamCount()).isEqualTo(1);
        assertThat(key.stats().successCount()).isEqualTo(1);
        assertThat(key.inFlight()).isZero();
    }

    @Test
    void should_pass_the_usage_chunk_to_a_client_that_asked_for_it() throws Exception {
        Streamed s = stream("{\"model\":\"" + testName() + "\",\"stream\":true,\"stream_options\":{\"include_usage\":true},"
                + "\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}");

        assertThat(s.data()).anyMatch(d -> d.contains("\"usage\":{\"prompt_tokens\":11"));
        assertThat(alpha().pool().find(Fingerprint.of("sk-alpha-1")).orElseThrow().stats().completionTokens()).isEqualTo(5);
    }

    @Test
    void should_cancel_the_upstream_and_free_the_key_when_the_client_disconnects() throws Exception {
        upstream.streamEvents(100, 100);
        ApiKey key = alpha().pool().find(Fingerprint.of("sk-alpha-1")).orElseThrow();
        String body = streamBody(testName());

        try (Socket socket = rawChat(body)) {
            BufferedReader in = new BufferedReader(new InputStreamReader(socket.getInputStream(), StandardCharsets.UTF_8));
            String line;
            while ((line = in.readLine()) != null && !line.contains("chat.completion.chunk")) {
                // skip the head until the first event
            }
            assertThat(line).contains("chat.completion.chunk");
            assertThat(key.inFlight()).isEqualTo(1);
        }

        await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
            assertThat(key.inFlight()).isZero();
            assertThat(upstream.streamsCancelled()).isEqualTo(1);
        });
        assertThat(upstream.streamsCompleted()).isZero();
        // the gateway still serves
        assertThat(chat(testName()).statusCode()).isEqualTo(200);
    }

    @Test
    void should_stream_every_token_to_langchain4j() throws Exception {
        upstream.answer("sk-alpha-1", 429, "30", null);
        OpenAiStreamingChatModel model = OpenAiStreamingChatModel.builder()
                .baseUrl(url("/v1")).apiKey("client-token").modelName(testName()).build();
        List<String> tokens = new ArrayList<>();
        CompletableFuture<ChatResponse> done = new CompletableFuture<>();

        model.chat("Say hi", new StreamingChatResponseHandler() {
            @Override
            public void onPartialResponse(String partial) {
                tokens.add(partial);
            }

            @Override
            public void onCompleteResponse(ChatResponse response) {
                done.complete(response);
            }

            @Override
            public void onError(Throwable error) {
                done.completeExceptionally(error);
            }
        });

        ChatResponse response = done.get(20, java.util.concurrent.TimeUnit.SECONDS);
        assertThat(upstream.hits("sk-alpha-2")).isEqualTo(1);
        assertThat(upstream.hits("sk-beta-1")).isZero();
        assertThat(tokens).containsExactly("tok0 ", "tok1 ", "tok2 ", "tok3 ", "tok4 ");
        assertThat(response.aiMessage().text()).isEqualTo("tok0 tok1 tok2 tok3 tok4 ");
    }
}
