package dev.keypool.it;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import org.apache.camel.CamelContext;
import org.apache.camel.component.platform.http.PlatformHttpEndpoint;
import org.apache.camel.spi.CamelEvent;
import org.apache.camel.support.EventNotifierSupport;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The edge bounds requests from the first one the gateway can take: while it starts, its HTTP server listens and its
 * routes begin to consume before the context is fully started, and a request let through then, without the edge, was
 * read whole into the heap (a 120 MB upload arriving in that window ran a 96 MiB gateway out of memory). Here a
 * request comes at the very moment the chat route has started, with a wrong token and a body announced but not sent.
 * The start gate holds it, its body unread, until the context has started, and the edge then answers 401 from its
 * headers; without either, the server waits for the 50 MB to read them. The request goes from a thread of its own: the
 * start goes on while it is held.
 */
class EdgeBeforeFirstRequestTest extends GatewayTestSupport {

    /** What the request sent as the chat route started got; null while the route has not started. */
    private final AtomicReference<CompletableFuture<String>> firstAnswer = new AtomicReference<>();

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
                    token: team-token
                """;
    }

    @Override
    protected CamelContext createCamelContext() throws Exception {
        CamelContext camel = super.createCamelContext();
        camel.getManagementStrategy().addEventNotifier(new EventNotifierSupport() {
            @Override
            public void notify(CamelEvent event) throws Exception {
                if (event instanceof CamelEvent.RouteStartedEvent started
                        && started.getRoute().getEndpoint() instanceof PlatformHttpEndpoint endpoint
                        && endpoint.getPath().equals("/v1/chat/completions")) {
                    firstAnswer.compareAndSet(null, CompletableFuture.supplyAsync(EdgeBeforeFirstRequestTest.this::statusOfAnnouncedBody));
                }
            }
        });
        return camel;
    }

    @Test
    void should_bound_a_request_that_arrives_as_soon_as_its_route_has_started() throws Exception {
        assertThat(firstAnswer.get().get(20, TimeUnit.SECONDS)).contains(" 401 ");
        assertThat(chatAs("team-token", "gpt-test").statusCode()).isEqualTo(200);
    }

    private String statusOfAnnouncedBody() {
        try (Socket client = new Socket("127.0.0.1", port)) {
            client.setSoTimeout(10_000);
            client.getOutputStream().write(("POST /v1/chat/completions HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                    + "Authorization: Bearer wrong-token\r\nContent-Type: application/json\r\nContent-Length: 50000000\r\n\r\n")
                    .getBytes(StandardCharsets.US_ASCII));
            InputStream in = client.getInputStream();
            StringBuilder line = new StringBuilder();
            for (int b = in.read(); b != -1 && b != '\n'; b = in.read()) {
                line.append((char) b);
            }
            return line.toString();
        } catch (SocketTimeoutException e) {
            return "no answer in 10 s: the body was being read";
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
