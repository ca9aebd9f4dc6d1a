package dev.keypool.it;

import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Random;

import dev.keypool.testing.FakeUpstream;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * An audio upload sent from its spooled file is read anew for every attempt: when the first key fails (500) the next
 * key gets the same bytes from the start, the {@code model} field renamed for the channel (modelMap) in both, with
 * the exact Content-Length. A stream read once would leave the retry an empty or cut body.
 */
class AudioUploadRetryTest extends GatewayTestSupport {

    @Override
    protected String keypoolYaml() {
        return """
                channels:
                  - name: alpha
                    baseUrl: UPSTREAM
                    models: [whisper-1]
                    modelMap: {whisper-1: whisper-large-v3}
                    apis: [audio]
                    maxRetries: 1
                    keys:
                      - key: sk-alpha-1
                      - key: sk-alpha-2
                """;
    }

    @Test
    void should_send_the_same_renamed_bytes_again_to_the_next_key() throws Exception {
        upstream.answer("sk-alpha-1", 500);
        byte[] audio = new byte[3 * 1024 * 1024 + 17];
        new Random(11).nextBytes(audio);

        HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(url("/v1/audio/transcriptions")))
                .header("Content-Type", "multipart/form-data; boundary=" + OpenAiSurfaceTest.BOUNDARY)
                .timeout(Duration.ofSeconds(30))
                .POST(HttpRequest.BodyPublishers.ofByteArray(OpenAiSurfaceTest.multipart("whisper-1", audio))).build(),
                HttpResponse.BodyHandlers.ofString());

        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
        byte[] expected = OpenAiSurfaceTest.multipart("whisper-large-v3", audio);
        assertThat(upstream.received()).extracting(FakeUpstream.Received::key).containsExactly("sk-alpha-1", "sk-alpha-2");
        for (FakeUpstream.Received got : upstream.received()) {
            assertThat(got.bytes()).isEqualTo(expected);
            assertThat(got.headers().get("Content-Length")).isEqualTo(String.valueOf(expected.length));
        }
    }
}
