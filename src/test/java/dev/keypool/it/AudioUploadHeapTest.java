package dev.keypool.it;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

import dev.keypool.testing.FakeUpstream;
import dev.keypool.testing.GatewayProcess;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Audio uploads are never whole in the gateway's heap: a gateway in a 96 MiB heap, with no body budget in the way,
 * holds six 20 MiB uploads with a provider that answers none until it has all six, and forwards each byte for byte.
 * Read back into the heap to be forwarded, as before, their 120 MiB did not fit: the gateway refused or failed them.
 */
@Tag("slow")
class AudioUploadHeapTest {

    private static final int UPLOADS = 6;

    private final FakeUpstream upstream = new FakeUpstream();
    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5)).build();
    private Process gateway;

    @AfterEach
    void stop() throws Exception {
        if (gateway != null) {
            gateway.destroyForcibly().waitFor();
        }
        upstream.close();
    }

    @Test
    void should_hold_more_audio_uploads_at_once_than_the_heap_could() throws Exception {
        Path root = Files.createTempDirectory("keypool-audio-heap-");
        String yaml = """
                channels:
                  - name: primary
                    baseUrl: %s
                    models: [whisper-1]
                    apis: [audio]
                    keys:
                      - key: sk-audio-one
                """.formatted(upstream.baseUrl());
        int port = GatewayTestSupport.freePort();
        gateway = GatewayProcess.start(root, "gateway", yaml, port, List.of("-Xmx96m", "-XX:+UseSerialGC"),
                Map.of("keypool.max-body-bytes-in-flight", "1000000000"));
        GatewayProcess.awaitStarted(port);

        byte[] audio = new byte[20 * 1024 * 1024];
        for (int i = 0; i < audio.length; i++) {
            audio[i] = (byte) ('a' + i % 26);
        }
        byte[] body = OpenAiSurfaceTest.multipart("whisper-1", audio);
        upstream.holdAnswers();
        List<CompletableFuture<HttpResponse<String>>> answers = new ArrayList<>();
        for (int i = 0; i < UPLOADS; i++) {
            answers.add(http.sendAsync(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/v1/audio/transcriptions"))
                    .header("Content-Type", "multipart/form-data; boundary=" + OpenAiSurfaceTest.BOUNDARY)
                    .timeout(Duration.ofSeconds(90))
                    .POST(HttpRequest.BodyPublishers.ofByteArray(body)).build(), HttpResponse.BodyHandlers.ofString()));
        }
        await().atMost(Duration.ofSeconds(90)).until(() -> upstream.heldAnswers() == UPLOADS
                || answers.stream().anyMatch(CompletableFuture::isDone));
        upstream.releaseAnswers();

        for (CompletableFuture<HttpResponse<String>> answer : answers) {
            HttpResponse<String> r = answer.get();
            assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
        }
        assertThat(upstream.received()).hasSize(UPLOADS).allSatisfy(got -> assertThat(got.bytes()).isEqualTo(body));
        assertThat(Files.readString(root.resolve("gateway.log"))).doesNotContain("OutOfMemoryError");
    }
}
