package dev.keypool.camel.http;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

import org.apache.camel.CamelContext;
import org.apache.camel.Exchange;
import org.apache.camel.ProducerTemplate;
import org.apache.camel.builder.RouteBuilder;
import org.apache.camel.component.vertx.http.VertxHttpComponent;
import org.apache.camel.http.base.HttpOperationFailedException;
import org.apache.camel.impl.DefaultCamelContext;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import static org.apache.camel.builder.Builder.constant;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * A plain provider call of {@link UpstreamHttpComponent}, sent on the HTTP client without WebClient, against Camel's own
 * vertx-http (WebClient) with the same route: the provider receives the same request to the byte (request line, headers
 * in their order, WebClient's User-Agent among them, body), and the route gets the same status, Content-Type and body,
 * or the same failure for a status that is not 2xx.
 */
class UpstreamCallAsWebClientTest {

    private static final String CHAT = "{\"model\":\"gpt-4o-mini\",\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}";

    private final ExecutorService accepting = Executors.newSingleThreadExecutor(r -> new Thread(r, "provider-test"));
    private final List<String> received = new CopyOnWriteArrayList<>();
    private ServerSocket provider;
    private volatile String answer;
    private CamelContext context;
    private ProducerTemplate template;

    @BeforeEach
    void start() throws Exception {
        provider = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        accepting.execute(this::serve);
        context = new DefaultCamelContext();
        context.addComponent("vertx-http", new UpstreamHttpComponent(Runnable::run, false, 64L << 20, 4, 30_000));
        context.addComponent("webclient-http", new VertxHttpComponent());
        String url = "http://127.0.0.1:" + provider.getLocalPort() + "/v1/chat/completions?api-version=2024-06-01";
        // a lambda, not a RouteBuilder subclass: Camel Main in the other tests scans this package for those
        RouteBuilder.addRoutes(context, routes -> {
            routes.from("direct:upstream")
                    .setHeader("Authorization", constant("Bearer key-1"))
                    .setHeader(Exchange.CONTENT_TYPE, constant("application/json"))
                    .setHeader("OpenAI-Organization", constant("org-1"))
                    .to("vertx-http:" + url + "&httpMethod=POST");
            routes.from("direct:webclient")
                    .setHeader("Authorization", constant("Bearer key-1"))
                    .setHeader(Exchange.CONTENT_TYPE, constant("application/json"))
                    .setHeader("OpenAI-Organization", constant("org-1"))
                    .to("webclient-http:" + url + "&httpMethod=POST");
        });
        context.start();
        template = context.createProducerTemplate();
    }

    @AfterEach
    void stop() throws IOException {
        context.stop();
        provider.close();
        accepting.shutdownNow();
    }

    @Test
    void should_send_the_request_and_hand_over_the_answer_as_webclient_does() {
        answer = "HTTP/1.1 200 OK\r\nContent-Type: application/json; charset=utf-8\r\nX-Request-Id: r-1\r\n"
                + "Content-Length: 27\r\nConnection: close\r\n\r\n{\"id\":\"chatcmpl-1\",\"ok\":1}\n";

        Exchange direct = template.send("direct:upstream", e -> e.getMessage().setBody(CHAT.getBytes(StandardCharsets.UTF_8)));
        Exchange webClient = template.send("direct:webclient", e -> e.getMessage().setBody(CHAT.getBytes(StandardCharsets.UTF_8)));

        assertThat(direct.getException()).isNull();
        assertThat(webClient.getException()).isNull();
        assertThat(received).hasSize(2);
        assertThat(received.get(0)).contains("POST /v1/chat/completions?api-version=2024-06-01 HTTP/1.1").endsWith(CHAT);
        assertThat(received.get(0)).isEqualTo(received.get(1));
        for (String header : List.of(Exchange.HTTP_RESPONSE_CODE, Exchange.CONTENT_TYPE)) {
            assertThat(direct.getMessage().getHeader(header)).as(header).isEqualTo(webClient.getMessage().getHeader(header));
        }
        assertThat(direct.getMessage().getBody(String.class)).isEqualTo("{\"id\":\"chatcmpl-1\",\"ok\":1}\n")
                .isEqualTo(webClient.getMessage().getBody(String.class));
    }

    @Test
    void should_fail_a_refused_call_as_webclient_does() {
        answer = "HTTP/1.1 429 Too Many Requests\r\nContent-Type: application/json\r\nRetry-After: 7\r\n"
                + "Transfer-Encoding: chunked\r\nConnection: close\r\n\r\n"
                + "b\r\n{\"error\":1}\r\n0\r\n\r\n";

        Exchange direct = template.send("direct:upstream", e -> e.getMessage().setBody(CHAT.getBytes(StandardCharsets.UTF_8)));
        Exchange webClient = template.send("direct:webclient", e -> e.getMessage().setBody(CHAT.getBytes(StandardCharsets.UTF_8)));

        assertThat(direct.getException()).isInstanceOf(HttpOperationFailedException.class);
        HttpOperationFailedException refused = (HttpOperationFailedException) direct.getException();
        HttpOperationFailedException refusedToWebClient = (HttpOperationFailedException) webClient.getException();
        assertThat(refused.getStatusCode()).isEqualTo(429).isEqualTo(refusedToWebClient.getStatusCode());
        assertThat(refused.getResponseBody()).isEqualTo("{\"error\":1}").isEqualTo(refusedToWebClient.getResponseBody());
        assertThat(refused.getResponseHeaders()).isEqualTo(refusedToWebClient.getResponseHeaders())
                .containsEntry("Retry-After", "7");
        assertThat(refused.getUri()).isEqualTo(refusedToWebClient.getUri());
    }

    /** One request per connection: its head and body recorded as they came, then {@link #answer}. */
    private void serve() {
        while (!provider.isClosed()) {
            try (Socket connection = provider.accept()) {
                InputStream in = connection.getInputStream();
                ByteArrayOutputStream request = new ByteArrayOutputStream();
                int contentLength = -1;
                while (contentLength < 0) {
                    request.write(in.read());
                    String head = request.toString(StandardCharsets.ISO_8859_1);
                    if (head.endsWith("\r\n\r\n")) {
                        contentLength = head.lines().filter(line -> line.regionMatches(true, 0, "content-length:", 0, 15))
                                .map(line -> Integer.parseInt(line.substring(15).trim())).findFirst().orElse(0);
                    }
                }
                request.write(in.readNBytes(contentLength));
                received.add(request.toString(StandardCharsets.ISO_8859_1));
                OutputStream out = connection.getOutputStream();
                out.write(answer.getBytes(StandardCharsets.ISO_8859_1));
                out.flush();
            } catch (IOException closed) {
                return;
            }
        }
    }
}
