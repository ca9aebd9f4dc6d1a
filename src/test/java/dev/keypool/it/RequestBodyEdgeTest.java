package dev.keypool.it;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Properties;

import dev.keypool.camel.http.RememberedHeaderFilter;
import dev.keypool.testing.FirstAnswered;
import io.vertx.ext.web.Route;
import org.apache.camel.component.platform.http.PlatformHttpComponent;
import org.apache.camel.component.platform.http.vertx.VertxPlatformHttpRouter;
import org.apache.camel.component.vertx.http.VertxHttpComponent;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Request bodies are bounded from their headers, before a byte of them is held: a wrong token gets 401 and an
 * oversized Content-Length 413 while the client has sent no body at all, a chunked body is cut at its path's limit as
 * it arrives, and past the budget of body bytes held at once a request gets 503 before its body is read. Each client
 * here sends its headers only and then waits: the gateway answers without waiting for the body.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class RequestBodyEdgeTest extends GatewayTestSupport {

    private static final String TOKEN = "edge-token";

    @Override
    protected String keypoolYaml() {
        return """
                channels:
                  - name: alpha
                    baseUrl: UPSTREAM
                    models: [gpt-test]
                    keys:
                      - key: sk-alpha-1
                tenants:
                  - name: team
                    token: edge-token
                """;
    }

    @Override
    protected Properties overrideProperties() {
        Properties p = super.overrideProperties();
        p.put("keypool.max-body-bytes-in-flight", "1000000");
        return p;
    }

    /**
     * Vert.x Web tries a request's path against each route in turn: the API's own paths are tried before the admin,
     * fault and batch routes, which start first, so that an LLM call is matched without their paths compared and their
     * path parameters' patterns run; chat completions first of all.
     */
    @Test
    void should_try_the_apis_own_paths_before_the_other_routes() throws Exception {
        VertxPlatformHttpRouter router = context.getRegistry().findByType(VertxPlatformHttpRouter.class).iterator().next();
        List<String> paths = router.getRoutes().stream().map(Route::getPath).filter(path -> path != null).toList();

        assertThat(paths).contains("/v1/chat/completions", "/v1/embeddings", "/admin/status", "/admin/faults");
        int lastApi = paths.lastIndexOf("/v1/embeddings");
        assertThat(paths.subList(0, lastApi + 1)).as("the routes up to the API's last").allMatch(path -> path.startsWith("/v1/"))
                .noneMatch(path -> path.contains(":"));
        assertThat(paths.indexOf("/v1/chat/completions")).isLessThan(paths.indexOf("/admin/status"));
        assertThat(paths.get(0)).as("chat completions, tried before every other path").isEqualTo("/v1/chat/completions");
        assertThat(chatAs(TOKEN, "gpt-test").statusCode()).isEqualTo(200);
    }

    /** The HTTP components filter headers as Camel's own filters do, their answer per header name remembered. */
    @Test
    void should_filter_headers_with_camels_filters_remembered_per_name() throws Exception {
        assertThat(context.getComponent("platform-http", PlatformHttpComponent.class).getHeaderFilterStrategy())
                .isInstanceOf(RememberedHeaderFilter.class);
        assertThat(context.getComponent("vertx-http", VertxHttpComponent.class).getHeaderFilterStrategy())
                .isInstanceOf(RememberedHeaderFilter.class);

        HttpResponse<String> answer = chatAs(TOKEN, "gpt-test");

        assertThat(answer.statusCode()).isEqualTo(200);
        assertThat(answer.headers().map().keySet()).noneMatch(name -> name.regionMatches(true, 0, "Camel", 0, 5));
        assertThat(upstream.received().get(upstream.received().size() - 1).headers().names())
                .noneMatch(name -> name.regionMatches(true, 0, "Camel", 0, 5));
    }

    @Test
    void should_answer_401_to_a_wrong_token_before_reading_the_body() throws Exception {
        try (Socket client = headersOnly("/v1/chat/completions", "wrong-token", "Content-Length: 60000000")) {
            assertThat(statusLine(client)).contains(" 401 ");
        }
        assertThat(chatAs(TOKEN, "gpt-test").statusCode()).isEqualTo(200);
    }

    @Test
    void should_answer_413_to_a_content_length_over_the_limit_before_reading_the_body() throws Exception {
        try (Socket client = headersOnly("/v1/chat/completions", TOKEN, "Content-Length: 60000000")) {
            assertThat(statusLine(client)).contains(" 413 ");
        }
        assertThat(chatAs(TOKEN, "gpt-test").statusCode()).isEqualTo(200);
    }

    @Test
    void should_apply_the_audio_limit_to_audio_uploads() throws Exception {
        // 25 MiB is OpenAI's limit for audio: 5 MB goes on to be read, 30 MB does not
        try (Socket client = headersOnly("/v1/audio/transcriptions", TOKEN, "Content-Length: 30000000")) {
            assertThat(statusLine(client)).contains(" 413 ");
        }
        try (Socket client = headersOnly("/v1/audio/transcriptions", TOKEN, "Content-Length: 5000000")) {
            client.setSoTimeout(1000);
            assertThat(silentFor(client)).isTrue();
        }
    }

    @Test
    void should_cut_a_chunked_body_at_the_limit_as_it_arrives() throws Exception {
        try (Socket client = headersOnly("/v1/chat/completions", TOKEN, "Transfer-Encoding: chunked")) {
            OutputStream out = client.getOutputStream();
            byte[] chunk = new byte[64 * 1024];
            // 5 MiB, past the JSON limit of 4 MiB, and no last chunk: the body never ends
            for (int i = 0; i < 80; i++) {
                out.write((Integer.toHexString(chunk.length) + "\r\n").getBytes(StandardCharsets.US_ASCII));
                out.write(chunk);
                out.write("\r\n".getBytes(StandardCharsets.US_ASCII));
            }
            out.flush();
            assertThat(statusLine(client)).contains(" 413 ");
        }
    }

    @Test
    void should_answer_503_when_the_bodies_held_at_once_would_pass_the_budget() throws Exception {
        // 900 kB and 200 kB do not both fit in 1 MB: the one whose headers are read first is held while it sends its
        // body, the other is refused at once. Which one that is, the event loops decide: each reads its connections.
        try (Socket holder = headersOnly("/v1/chat/completions", TOKEN, "Content-Length: 900000");
             Socket second = headersOnly("/v1/chat/completions", TOKEN, "Content-Length: 200000")) {
            Socket refused = FirstAnswered.of(java.time.Duration.ofSeconds(5), holder, second);
            assertThat(statusLine(refused)).contains(" 503 ");
            Socket held = refused == second ? holder : second;
            held.setSoTimeout(300);
            assertThat(silentFor(held)).isTrue();
        }
        // given back once those requests are gone
        org.awaitility.Awaitility.await().atMost(java.time.Duration.ofSeconds(10))
                .until(() -> chatAs(TOKEN, "gpt-test").statusCode() == 200);
    }

    /** A POST whose headers are sent and whose body is not (yet). */
    private Socket headersOnly(String path, String token, String lengthHeader) throws IOException {
        Socket socket = new Socket("127.0.0.1", port);
        socket.setSoTimeout(5000);
        socket.getOutputStream().write(("POST " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                + "Authorization: Bearer " + token + "\r\n" + lengthHeader + "\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
        socket.getOutputStream().flush();
        return socket;
    }

    /** The status line of the answer; a read timeout (the gateway waits for the body) fails the test. */
    private static String statusLine(Socket socket) throws IOException {
        InputStream in = socket.getInputStream();
        StringBuilder line = new StringBuilder();
        for (int c = in.read(); c >= 0 && c != '\n'; c = in.read()) {
            line.append((char) c);
        }
        return line.toString();
    }

    /** Whether the gateway says nothing (it waits for the body) until the socket's timeout. */
    private static boolean silentFor(Socket socket) throws IOException {
        try {
            socket.getInputStream().read();
            return false;
        } catch (SocketTimeoutException e) {
            return true;
        }
    }
}
