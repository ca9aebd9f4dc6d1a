package dev.keypool.it;

import java.io.ByteArrayOutputStream;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;


import dev.keypool.gateway.Channel;
import dev.keypool.pool.ApiKey;
import dev.keypool.pool.Fingerprint;
import dev.keypool.testing.FakeUpstream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The rest of the OpenAI API (design §14) over raw HTTP: every path through the same pipeline, with the channels' apis.
 * The tests share one gateway, each on a channel alpha of its own (its keys' states and counters are the test's alone).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class OpenAiSurfaceTest extends GatewayTestSupport {

    /** The test whose model beta knows under another name. */
    private static final String RENAMED_FOR_BETA = "rename-only-the-model-field-of-a-multipart-upload-for-a-fallback-channel";

    /**
     * chat-only first in the file, serving every model of the default apis; then each test's own channel alpha, named
     * after the test and serving one model of the same name, falling back to chat-only and beta; beta last.
     */
    @Override
    protected String keypoolYaml() {
        StringBuilder yaml = new StringBuilder("""
                channels:
                  - name: chat-only
                    baseUrl: UPSTREAM
                    models: ["*"]
                    keys:
                      - key: sk-chat-1
                """);
        for (String test : testNames()) {
            yaml.append("""
                      - name: %1$s
                        baseUrl: UPSTREAM
                        models: [%1$s]
                        apis: [chat, responses, completions, moderations, images, audio, rerank]
                        maxRetries: 1
                        fallback: [chat-only, beta]
                        keys:
                          - key: sk-alpha-1
                          - key: sk-alpha-2
                    """.formatted(test));
        }
        // after them: its alias of one test's model would make it that model's primary
        return yaml.append("""
                  - name: beta
                    baseUrl: UPSTREAM
                    models: [beta-model]
                    modelMap: {%s: whisper-large}
                    apis: [responses, audio]
                    keys:
                      - key: sk-beta-1
                """.formatted(RENAMED_FOR_BETA)).toString();
    }

    /** This test's channel. */
    private Channel alpha() {
        return channel(testName());
    }

    /** A JSON body of this test's model with these fields after it: {@code body("\"input\":\"hi\"")}. */
    private String body(String fields) {
        return "{\"model\":\"" + testName() + "\"," + fields + "}";
    }

    @Test
    void should_route_responses_only_to_channels_serving_them_and_count_input_and_output_tokens() throws Exception {
        HttpResponse<String> r = post("/v1/responses", body("\"input\":\"hi\""));

        assertThat(r.statusCode()).isEqualTo(200);
        // chat-only serves every model, and comes first, but not the responses API
        assertThat(r.headers().firstValue("X-KeyPool-Channel")).contains(testName());
        assertThat(r.body()).contains("\"object\":\"response\"");
        assertThat(upstream.received().get(0).path()).isEqualTo("/v1/responses");
        ApiKey key = alpha().pool().find(Fingerprint.of("sk-alpha-1")).orElseThrow();
        assertThat(key.stats().promptTokens()).isEqualTo(11);
        assertThat(key.stats().completionTokens()).isEqualTo(7);
    }

    @Test
    void should_skip_fallback_channels_that_do_not_serve_the_api() throws Exception {
        upstream.answer("sk-alpha-1", 503).answer("sk-alpha-2", 503);

        HttpResponse<String> r = post("/v1/responses", body("\"input\":\"hi\""));

        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(r.headers().firstValue("X-KeyPool-Channel")).contains("beta");
        assertThat(r.headers().firstValue("X-Fallback-Level")).contains("1");
        assertThat(upstream.hits("sk-chat-1")).isZero();
    }

    @Test
    void should_relay_a_responses_stream_event_by_event_and_count_its_usage() throws Exception {
        upstream.streamEvents(5, 10);

        HttpResponse<String> r = post("/v1/responses", body("\"input\":\"hi\",\"stream\":true"));

        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(r.headers().firstValue("Content-Type")).contains("text/event-stream");
        assertThat(r.body()).startsWith("event: response.created\ndata: {\"type\":\"response.created\"");
        assertThat(r.body().split("event: response.output_text.delta\n")).hasSize(6);
        assertThat(r.body()).endsWith("\"total_tokens\":18}}}\n\n").doesNotContain("[DONE]").doesNotContain("event: error");
        // nothing added to a Responses request: its stream always ends with the usage
        assertThat(upstream.received().get(0).body()).doesNotContain("stream_options");
        ApiKey key = alpha().pool().find(Fingerprint.of("sk-alpha-1")).orElseThrow();
        assertThat(key.stats().completionTokens()).isEqualTo(5);
        assertThat(key.stats().streamCount()).isEqualTo(1);
        assertThat(key.inFlight()).isZero();
    }

    @Test
    void should_end_a_broken_responses_stream_with_an_error_event_of_the_responses_format() throws Exception {
        upstream.cutStreamAfter("sk-alpha-1", 3);

        HttpResponse<String> r = post("/v1/responses", body("\"input\":\"hi\",\"stream\":true"));

        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(r.body()).endsWith("\n\nevent: error\ndata: {\"type\":\"error\",\"code\":\"stream_interrupted\","
                + "\"message\":\"The upstream stream of channel " + testName() + " broke after 4 events; the answer is incomplete\","
                + "\"param\":null,\"sequence_number\":4}\n\n");
        assertThat(upstream.hits("sk-alpha-2")).isZero();
        assertThat(alpha().pool().find(Fingerprint.of("sk-alpha-1")).orElseThrow().stats().failureCount()).isEqualTo(1);
    }

    @Test
    void should_pass_legacy_completions_plain_and_streamed() throws Exception {
        HttpResponse<String> plain = post("/v1/completions", body("\"prompt\":\"Say hi\""));
        HttpResponse<String> streamed = post("/v1/completions", body("\"prompt\":\"Say hi\",\"stream\":true"));

        assertThat(plain.statusCode()).isEqualTo(200);
        assertThat(plain.body()).contains("\"object\":\"text_completion\"");
        assertThat(upstream.received().get(0).path()).isEqualTo("/v1/completions");
        assertThat(streamed.body()).contains("\"text\":\"tok4 \"").endsWith("data: [DONE]\n\n").doesNotContain("usage");
        assertThat(upstream.received().get(1).body()).contains("\"include_usage\":true");
        // completions are among the default apis: chat-only, first in the file, serves them
        assertThat(streamed.headers().firstValue("X-KeyPool-Channel")).contains("chat-only");
        assertThat(channel("chat-only").pool().find(Fingerprint.of("sk-chat-1")).orElseThrow().stats().completionTokens()).isEqualTo(4 + 5);
    }

    @Test
    void should_pass_moderations_images_and_rerank_through_unchanged() throws Exception {
        assertThat(post("/v1/moderations", body("\"input\":\"x\"")).body()).contains("modr-fake-");
        assertThat(post("/v1/images/generations", body("\"prompt\":\"a cat\"")).body()).contains("fake-");
        HttpResponse<String> rerank = post("/v1/rerank", body("\"query\":\"q\",\"documents\":[\"a\",\"b\"]"));
        assertThat(rerank.body()).contains("relevance_score");
        assertThat(rerank.headers().firstValue("X-KeyPool-Channel")).contains(testName());
        assertThat(upstream.received().stream().map(FakeUpstream.Received::path))
                .containsExactly("/v1/moderations", "/v1/images/generations", "/v1/rerank");
    }

    @Test
    void should_answer_speech_with_the_providers_bytes_and_content_type() throws Exception {
        HttpRequest request = HttpRequest.newBuilder(URI.create(url("/v1/audio/speech")))
                .header("Content-Type", "application/json").timeout(Duration.ofSeconds(30))
                .POST(HttpRequest.BodyPublishers.ofString(body("\"input\":\"hello\",\"voice\":\"alloy\""))).build();

        HttpResponse<byte[]> r = http.send(request, HttpResponse.BodyHandlers.ofByteArray());

        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(r.headers().firstValue("Content-Type")).contains("audio/mpeg");
        assertThat(r.body()).isEqualTo(FakeUpstream.SPEECH);
        assertThat(alpha().pool().find(Fingerprint.of("sk-alpha-1")).orElseThrow().stats().successCount()).isEqualTo(1);
    }

    @Test
    void should_forward_a_multipart_upload_byte_for_byte_with_its_boundary() throws Exception {
        byte[] body = multipart(testName(), wav(2000));

        HttpResponse<String> r = postMultipart("/v1/audio/transcriptions", body);

        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(r.body()).isEqualTo("{\"text\":\"transcribed " + body.length + " bytes by sk-alpha-1\"}");
        FakeUpstream.Received got = upstream.received().get(0);
        assertThat(got.path()).isEqualTo("/v1/audio/transcriptions");
        assertThat(got.bytes()).isEqualTo(body);
        assertThat(got.headers().get("Content-Type")).isEqualTo("multipart/form-data; boundary=" + BOUNDARY);
        assertThat(got.headers().get("Authorization")).isEqualTo("Bearer sk-alpha-1");
    }

    @Test
    void should_rename_only_the_model_field_of_a_multipart_upload_for_a_fallback_channel() throws Exception {
        upstream.answer("sk-alpha-1", 429, "30", null).answer("sk-alpha-2", 429, "30", null);
        byte[] body = multipart(testName(), wav(500));

        HttpResponse<String> r = postMultipart("/v1/audio/translations", body);

        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(r.headers().firstValue("X-KeyPool-Channel")).contains("beta");
        byte[] expected = multipart("whisper-large", wav(500));
        assertThat(upstream.received().get(2).bytes()).isEqualTo(expected);
    }

    @Test
    void should_answer_openai_shaped_errors_on_the_new_paths() throws Exception {
        assertError(post("/v1/moderations", "{\"input\":\"x\"}"), 400, "missing_model");
        assertError(post("/v1/responses", "{\"model\":\"nobody-serves-this\",\"input\":\"x\"}"), 404, "model_not_found");
        // beta-model is served, but beta does not serve images
        assertError(post("/v1/images/generations", "{\"model\":\"beta-model\",\"prompt\":\"x\"}"), 404, "model_not_found");
        assertError(postMultipart("/v1/audio/transcriptions", multipart(null, wav(100))), 400, "missing_model");
        assertError(postMultipart("/v1/audio/transcriptions", multipart(testName(), new byte[25 * 1024 * 1024 + 1])), 413, "request_too_large");
        assertError(post("/v1/rerank", body("\"query\":\"" + "x".repeat(4 * 1024 * 1024) + "\"")), 413, "request_too_large");
        assertThat(upstream.totalHits()).isZero();
        assertThat(postMultipart("/v1/audio/transcriptions", multipart(testName(), wav(100))).statusCode()).isEqualTo(200);
    }

    static final String BOUNDARY = "----KeyPoolTestBoundary7MA4YWxkTrZu0gW";

    /** A form as the OpenAI SDKs send it: a file part and a model part (none when {@code model} is null). */
    static byte[] multipart(String model, byte[] file) throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        out.write(("--" + BOUNDARY + "\r\nContent-Disposition: form-data; name=\"file\"; filename=\"hello.wav\"\r\n"
                + "Content-Type: audio/wav\r\n\r\n").getBytes(StandardCharsets.UTF_8));
        out.write(file);
        out.write("\r\n".getBytes(StandardCharsets.UTF_8));
        if (model != null) {
            out.write(("--" + BOUNDARY + "\r\nContent-Disposition: form-data; name=\"model\"\r\n\r\n" + model + "\r\n")
                    .getBytes(StandardCharsets.UTF_8));
        }
        out.write(("--" + BOUNDARY + "--\r\n").getBytes(StandardCharsets.UTF_8));
        return out.toByteArray();
    }

    /** A valid 8 kHz mono 16-bit PCM WAV of {@code samples} samples of a square wave. */
    static byte[] wav(int samples) {
        int dataSize = samples * 2;
        java.nio.ByteBuffer b = java.nio.ByteBuffer.allocate(44 + dataSize).order(java.nio.ByteOrder.LITTLE_ENDIAN);
        b.put("RIFF".getBytes(StandardCharsets.US_ASCII)).putInt(36 + dataSize).put("WAVE".getBytes(StandardCharsets.US_ASCII));
        b.put("fmt ".getBytes(StandardCharsets.US_ASCII)).putInt(16).putShort((short) 1).putShort((short) 1)
                .putInt(8000).putInt(16000).putShort((short) 2).putShort((short) 16);
        b.put("data".getBytes(StandardCharsets.US_ASCII)).putInt(dataSize);
        for (int i = 0; i < samples; i++) {
            b.putShort((short) ((i / 20) % 2 == 0 ? 8000 : -8000));
        }
        return b.array();
    }

    private HttpResponse<String> postMultipart(String path, byte[] body) throws Exception {
        HttpRequest request = HttpRequest.newBuilder(URI.create(url(path)))
                .header("Content-Type", "multipart/form-data; boundary=" + BOUNDARY)
                .header("Authorization", "Bearer client-token-should-not-leak")
                .timeout(Duration.ofSeconds(30))
                .POST(HttpRequest.BodyPublishers.ofByteArray(body)).build();
        return http.send(request, HttpResponse.BodyHandlers.ofString());
    }

    private static void assertError(HttpResponse<String> r, int status, String code) throws Exception {
        assertThat(r.statusCode()).as(r.body()).isEqualTo(status);
        assertThat(r.headers().firstValue("Content-Type")).hasValueSatisfying(v -> assertThat(v).startsWith("application/json"));
        var error = new com.fasterxml.jackson.databind.ObjectMapper().readTree(r.body()).get("error");
        assertThat(error.get("code").asText()).isEqualTo(code);
        assertThat(error.get("type").asText()).isEqualTo(status == 404 || status == 400 || status == 413 ? "invalid_request_error" : "");
        assertThat(error.get("message").asText()).isNotBlank();
    }

}
