package dev.keypool.it;

import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.CompletableFuture;
import java.util.stream.Stream;

import dev.keypool.testing.FakeUpstream;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Audio uploads go to disk as they arrive and from there to the provider, so they take nothing from the budget of
 * body bytes held in the heap: with a budget of 2 MiB, four 5 MiB uploads at once all reach a provider that holds
 * its answers until it has all four, byte for byte and with their exact length, and their spooled files are gone once
 * they are answered. Read back into the heap (and counted in the budget), all but the first got 503.
 */
class AudioUploadsOutsideBudgetTest extends GatewayTestSupport {

    private static final int UPLOADS = 4;
    private Path stateDir;

    @Override
    protected String keypoolYaml() {
        return """
                channels:
                  - name: alpha
                    baseUrl: UPSTREAM
                    models: [whisper-1]
                    apis: [audio]
                    keys:
                      - key: sk-alpha-1
                """;
    }

    @Override
    protected Properties overrideProperties() {
        Properties p = super.overrideProperties();
        p.put("keypool.max-body-bytes-in-flight", String.valueOf(2 * 1024 * 1024));
        stateDir = Path.of(p.getProperty("state.dir"));
        return p;
    }

    @Test
    void should_forward_concurrent_audio_uploads_larger_than_the_body_budget() throws Exception {
        byte[] audio = new byte[5 * 1024 * 1024];
        for (int i = 0; i < audio.length; i++) {
            // text bytes: the fake provider reads each body as a string too, and random bytes make that slow
            audio[i] = (byte) ('a' + i % 26);
        }
        byte[] body = OpenAiSurfaceTest.multipart("whisper-1", audio);
        upstream.holdAnswers();

        List<CompletableFuture<HttpResponse<String>>> answers = new ArrayList<>();
        for (int i = 0; i < UPLOADS; i++) {
            answers.add(http.sendAsync(HttpRequest.newBuilder(URI.create(url("/v1/audio/transcriptions")))
                    .header("Content-Type", "multipart/form-data; boundary=" + OpenAiSurfaceTest.BOUNDARY)
                    .timeout(Duration.ofSeconds(60))
                    .POST(HttpRequest.BodyPublishers.ofByteArray(body)).build(), HttpResponse.BodyHandlers.ofString()));
        }
        // all four are with the provider at the same time
        await().atMost(Duration.ofSeconds(60)).until(() -> upstream.heldAnswers() == UPLOADS
                || answers.stream().anyMatch(CompletableFuture::isDone));
        upstream.releaseAnswers();

        for (CompletableFuture<HttpResponse<String>> answer : answers) {
            HttpResponse<String> r = answer.get();
            assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
        }
        assertThat(upstream.received()).hasSize(UPLOADS);
        for (FakeUpstream.Received got : upstream.received()) {
            assertThat(got.bytes()).isEqualTo(body);
            assertThat(got.headers().get("Content-Length")).isEqualTo(String.valueOf(body.length));
            assertThat(got.headers().get("Transfer-Encoding")).isNull();
        }
        await().atMost(Duration.ofSeconds(10)).until(() -> spooledFiles() == 0);
    }

    private long spooledFiles() throws Exception {
        try (Stream<Path> files = Files.list(stateDir.resolve("uploads"))) {
            return files.count();
        }
    }
}
