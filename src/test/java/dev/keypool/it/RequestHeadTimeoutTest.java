package dev.keypool.it;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.SocketException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Properties;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A connection that has not sent a complete request head within keypool.request-header-timeout-ms of opening or of its
 * previous answer is closed; a request whose head is in is not limited by it, however long its provider or its stream
 * takes. The tests share one gateway: none of them leaves anything another one reads. Each request goes on a
 * connection of its own: the gateway closes a pooled client's idle connection after the timeout, and a request the
 * client sent on it as it closed would fail with the connection, not with anything the gateway did to the request.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class RequestHeadTimeoutTest extends GatewayTestSupport {

    private static final int TIMEOUT_MS = 500;

    @Override
    protected String keypoolYaml() {
        return """
                channels:
                  - name: alpha
                    baseUrl: UPSTREAM
                    models: [gpt-test]
                    keys:
                      - key: sk-alpha-1
                """;
    }

    @Override
    protected Properties overrideProperties() {
        Properties p = super.overrideProperties();
        p.put("keypool.request-header-timeout-ms", String.valueOf(TIMEOUT_MS));
        return p;
    }

    @Test
    void should_close_a_connection_that_dribbles_its_headers_and_answer_others_meanwhile() throws Exception {
        ScheduledExecutorService dribbler = Executors.newSingleThreadScheduledExecutor();
        try (Socket slow = new Socket("127.0.0.1", port)) {
            OutputStream out = slow.getOutputStream();
            out.write("POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\n".getBytes(StandardCharsets.US_ASCII));
            out.flush();
            long start = System.nanoTime();
            // one byte of a header every 100 ms: never a complete head
            dribbler.scheduleAtFixedRate(() -> {
                try {
                    out.write('a');
                    out.flush();
                } catch (IOException closed) {
                    // the server closed the connection
                }
            }, 100, 100, TimeUnit.MILLISECONDS);

            CompletableFuture<Integer> other = CompletableFuture.supplyAsync(() -> {
                try {
                    return onNewConnection(chatRequest()).statusCode();
                } catch (Exception e) {
                    throw new CompletionException(e);
                }
            });

            slow.setSoTimeout(5_000);
            assertThat(readToClose(slow.getInputStream())).isEmpty();
            assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofMillis(TIMEOUT_MS + 2_500));
            assertThat(other.get(30, TimeUnit.SECONDS)).isEqualTo(200);
        } finally {
            dribbler.shutdownNow();
        }
    }

    @Test
    void should_close_an_idle_connection_after_its_answer() throws Exception {
        try (Socket client = rawChat(chatBody("gpt-test"))) {
            client.setSoTimeout(5_000);
            String answer = readToClose(client.getInputStream());
            assertThat(answer).startsWith("HTTP/1.1 200 ");
        }
    }

    @Test
    void should_answer_a_request_that_waits_longer_on_its_provider_than_the_timeout() throws Exception {
        upstream.slow("sk-alpha-1", 2 * TIMEOUT_MS);

        assertThat(onNewConnection(chatRequest()).statusCode()).isEqualTo(200);
    }

    @Test
    void should_relay_a_stream_that_lasts_longer_than_the_timeout() throws Exception {
        upstream.streamEvents(6, TIMEOUT_MS / 3);
        HttpRequest request = HttpRequest.newBuilder(URI.create(url("/v1/chat/completions")))
                .header("Content-Type", "application/json").timeout(Duration.ofSeconds(30))
                .POST(HttpRequest.BodyPublishers.ofString(
                        "{\"model\":\"gpt-test\",\"stream\":true,\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}"))
                .build();

        HttpResponse<String> streamed = onNewConnection(request);

        assertThat(streamed.statusCode()).isEqualTo(200);
        assertThat(streamed.body()).contains("data: [DONE]");
    }

    private HttpRequest chatRequest() {
        return HttpRequest.newBuilder(URI.create(url("/v1/chat/completions")))
                .header("Content-Type", "application/json").timeout(Duration.ofSeconds(30))
                .POST(HttpRequest.BodyPublishers.ofString(chatBody("gpt-test"))).build();
    }

    /** Sent by a client of its own, so on a new connection (see the class comment). */
    private static HttpResponse<String> onNewConnection(HttpRequest request) throws IOException, InterruptedException {
        HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(Duration.ofSeconds(5)).build();
        return client.send(request, HttpResponse.BodyHandlers.ofString());
    }

    /** What the server sends until it closes the connection; fails when it has not within the socket's timeout. */
    private static String readToClose(InputStream in) throws IOException {
        StringBuilder read = new StringBuilder();
        byte[] buffer = new byte[8192];
        try {
            for (int n; (n = in.read(buffer)) != -1; ) {
                read.append(new String(buffer, 0, n, StandardCharsets.ISO_8859_1));
            }
        } catch (SocketException reset) {
            // closed while our bytes were still arriving: a reset is a close too
        }
        return read.toString();
    }
}
