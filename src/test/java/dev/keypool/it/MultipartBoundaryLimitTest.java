package dev.keypool.it;

import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;

import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A multipart upload whose boundary is longer than RFC 2046's 70 characters is refused 400 at once: 4 MB with a
 * 6,000-character boundary cost 10 s of CPU in a quadratic search before.
 */
class MultipartBoundaryLimitTest extends GatewayTestSupport {

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

    @Test
    void should_refuse_a_boundary_over_70_characters_within_a_second() throws Exception {
        String boundary = "-".repeat(5999) + "x";
        // near-matches of the boundary all the way: the worst case of a plain search
        byte[] body = new byte[4 * 1024 * 1024];
        Arrays.fill(body, (byte) '-');

        // the gateway's and this client's first request load their classes: not what is timed here
        assertThat(get("/v1/models").statusCode()).isEqualTo(200);

        long started = System.nanoTime();
        HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(url("/v1/audio/transcriptions")))
                .header("Content-Type", "multipart/form-data; boundary=" + boundary)
                .timeout(Duration.ofSeconds(30))
                .POST(HttpRequest.BodyPublishers.ofByteArray(body)).build(), HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
        Duration took = Duration.ofNanos(System.nanoTime() - started);

        assertThat(r.statusCode()).isEqualTo(400);
        assertThat(new ObjectMapper().readTree(r.body()).path("error").path("message").asText()).contains("RFC 2046");
        assertThat(took).isLessThan(Duration.ofSeconds(1));
        assertThat(upstream.totalHits()).isZero();
    }
}
