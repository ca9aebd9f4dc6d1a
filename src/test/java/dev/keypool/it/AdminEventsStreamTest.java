package dev.keypool.it;

import java.io.BufferedReader;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import dev.keypool.pool.Fingerprint;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/** GET /admin/events?stream=true: every state change as a Server-Sent Event, as it happens. */
class AdminEventsStreamTest extends GatewayTestSupport {

    @Override
    protected String keypoolYaml() {
        return """
                channels:
                  - name: alpha
                    baseUrl: UPSTREAM
                    models: [gpt-test]
                    keys:
                      - key: sk-alpha-1
                      - key: sk-alpha-2
                admin:
                  token: admin-secret-token
                """;
    }

    @Test
    void should_stream_key_and_breaker_changes_as_they_happen() throws Exception {
        AdminCalls admin = new AdminCalls(http, url(""));
        // one change before the stream starts, read as JSON: the stream goes on after it, without it
        admin.call("PATCH", "/admin/keys/" + Fingerprint.of("sk-alpha-1"), "{\"weight\":2}");
        HttpRequest request = HttpRequest.newBuilder(URI.create(url("/admin/events?stream=true&since=1")))
                .header("Authorization", "Bearer " + AdminCalls.TOKEN).GET().build();
        HttpResponse<InputStream> stream = http.send(request, HttpResponse.BodyHandlers.ofInputStream());
        assertThat(stream.statusCode()).isEqualTo(200);
        assertThat(stream.headers().firstValue("Content-Type")).contains("text/event-stream");
        List<String> data = new CopyOnWriteArrayList<>();
        Thread reader = new Thread(() -> {
            try (BufferedReader lines = new BufferedReader(new InputStreamReader(stream.body(), StandardCharsets.UTF_8))) {
                for (String line = lines.readLine(); line != null; line = lines.readLine()) {
                    if (line.startsWith("data: ")) {
                        data.add(line.substring(6));
                    }
                }
            } catch (Exception closed) {
                // the test ends the stream
            }
        });
        reader.setDaemon(true);
        reader.start();

        upstream.answer("sk-alpha-1", 429, "20", null);
        chat("gpt-test");
        admin.post("/admin/channels/alpha/breaker", "{\"state\":\"OPEN\",\"reason\":\"test\"}");

        await().atMost(Duration.ofSeconds(5)).until(() -> data.size() >= 2);
        assertThat(data.get(0)).contains("\"id\":2").contains("cooling 20s after 429");
        assertThat(data.get(1)).contains("\"id\":3").contains("Channel [alpha] forced OPEN by operator: test")
                .contains("\"from\":\"CLOSED\"").contains("\"to\":\"OPEN\"");
        stream.body().close();
        reader.join(1000);
    }

    @Test
    void should_end_open_streams_when_the_gateway_stops() throws Exception {
        HttpRequest request = HttpRequest.newBuilder(URI.create(url("/admin/events?stream=true")))
                .header("Authorization", "Bearer " + AdminCalls.TOKEN).GET().build();
        HttpResponse<InputStream> stream = http.send(request, HttpResponse.BodyHandlers.ofInputStream());
        assertThat(stream.statusCode()).isEqualTo(200);

        long started = System.nanoTime();
        context.stop();

        // an open dashboard does not hold up the shutdown until Camel's graceful timeout
        assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofSeconds(5));
        stream.body().close();
    }
}
