package dev.keypool.camel.http;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;

import dev.keypool.testing.FreePorts;
import io.vertx.core.buffer.Buffer;
import org.apache.camel.CamelContext;
import org.apache.camel.Exchange;
import org.apache.camel.Message;
import org.apache.camel.builder.RouteBuilder;
import org.apache.camel.component.platform.http.PlatformHttpConstants;
import org.apache.camel.component.platform.http.vertx.VertxPlatformHttpEngine;
import org.apache.camel.component.platform.http.vertx.VertxPlatformHttpServer;
import org.apache.camel.component.platform.http.vertx.VertxPlatformHttpServerConfiguration;
import org.apache.camel.impl.DefaultCamelContext;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link AnswerWriter} through {@link GatewayHttpEngine} against platform-http's own engine, the same routes on two
 * servers: each answer the same to the byte on the wire (status line, headers in their order, Content-Length or chunked
 * encoding, body), for every body type the writer takes, none, HEAD, headers filtered, of several values and named as
 * path parameters, and a failed route, which platform-http writes itself.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class AnswerWriterTest {

    private static final byte[] JSON = "{\"id\":\"chatcmpl-1\",\"choices\":[]}".getBytes(StandardCharsets.UTF_8);

    private CamelContext gateways;
    private CamelContext platformHttps;
    private int gatewayPort;
    private int platformHttpPort;

    @BeforeAll
    void start() throws Exception {
        gatewayPort = FreePorts.next();
        platformHttpPort = FreePorts.next();
        gateways = started(gatewayPort, new GatewayHttpEngine(false, false));
        platformHttps = started(platformHttpPort, new VertxPlatformHttpEngine());
    }

    @AfterAll
    void stop() {
        gateways.stop();
        platformHttps.stop();
    }

    @ParameterizedTest
    @CsvSource({
            "GET, /bytebuffer", "HEAD, /bytebuffer", "GET, /bytes", "GET, /text", "GET, /blank", "GET, /buffer",
            "GET, /none", "GET, /none-201", "GET, /headers", "GET, /params/7", "GET, /fails", "POST, /bytebuffer"})
    void should_write_the_answer_as_platform_http_does(String method, String path) throws IOException {
        String gateway = exchange(gatewayPort, method, path);

        assertThat(gateway).startsWith("HTTP/1.1 ");
        assertThat(gateway).isEqualTo(exchange(platformHttpPort, method, path));
    }

    private static CamelContext started(int port, VertxPlatformHttpEngine engine) throws Exception {
        VertxPlatformHttpServerConfiguration server = new VertxPlatformHttpServerConfiguration();
        server.setBindHost("127.0.0.1");
        server.setBindPort(port);
        CamelContext context = new DefaultCamelContext();
        context.addService(new VertxPlatformHttpServer(server));
        context.getRegistry().bind(PlatformHttpConstants.PLATFORM_HTTP_ENGINE_NAME, engine);
        // a lambda, not a RouteBuilder subclass: Camel Main in the other tests scans this package for those
        RouteBuilder.addRoutes(context, routes -> {
            routes.from("platform-http:/bytebuffer").process(e -> answer(e, 200, ByteBuffer.wrap(JSON)));
            routes.from("platform-http:/bytes").process(e -> answer(e, 201, JSON));
            routes.from("platform-http:/text").process(e -> answer(e, 200, "plain text, ünïcode"));
            routes.from("platform-http:/blank").process(e -> answer(e, 200, ""));
            routes.from("platform-http:/buffer").process(e -> answer(e, 200, Buffer.buffer(JSON)));
            routes.from("platform-http:/none").process(e -> {
                e.getMessage().removeHeaders("*");
                e.getMessage().setBody(null);
            });
            routes.from("platform-http:/none-201").process(e -> answer(e, 201, null));
            routes.from("platform-http:/headers").process(e -> {
                answer(e, 429, ByteBuffer.wrap(JSON));
                Message message = e.getMessage();
                message.setHeader("X-KeyPool-Channel", "primary");
                message.setHeader("X-KeyPool-Attempts", 2);
                message.setHeader("Retry-After", 30L);
                message.setHeader("X-Flag", Boolean.TRUE);
                message.setHeader("X-Empty", "");
                message.setHeader("X-Several", List.of("one", "two"));
                message.setHeader("X-Array", new String[] {"three", "four"});
                message.setHeader("CamelInternal", "never on the wire");
                message.setHeader("Content-Length", "999");
                message.setHeader("Transfer-Encoding", "gzip");
            });
            routes.from("platform-http:/params/{id}").process(e -> {
                answer(e, 200, ByteBuffer.wrap(JSON));
                e.getMessage().setHeader("id", "a path parameter, never a header");
                e.getMessage().setHeader("X-Id", "a header");
            });
            routes.from("platform-http:/fails").process(e -> {
                throw new IllegalStateException("the gateway's own fault");
            });
        });
        context.start();
        return context;
    }

    /** As a route's end makes the answer (Exchanges.answer): the request's headers gone, status, type and body. */
    private static void answer(Exchange exchange, int status, Object body) {
        Message message = exchange.getMessage();
        message.removeHeaders("*");
        message.setHeader(Exchange.HTTP_RESPONSE_CODE, status);
        message.setHeader(Exchange.CONTENT_TYPE, "application/json");
        message.setBody(body);
    }

    /** The whole answer as it came on the wire, to a request on a connection of its own. */
    private static String exchange(int port, String method, String path) throws IOException {
        try (Socket socket = new Socket("127.0.0.1", port)) {
            socket.setSoTimeout(10_000);
            OutputStream out = socket.getOutputStream();
            String body = method.equals("POST") ? "{\"model\":\"m\"}" : "";
            out.write((method + " " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n"
                    + (body.isEmpty() ? "" : "Content-Type: application/json\r\nContent-Length: " + body.length() + "\r\n")
                    + "\r\n" + body).getBytes(StandardCharsets.US_ASCII));
            out.flush();
            InputStream in = socket.getInputStream();
            ByteArrayOutputStream answer = new ByteArrayOutputStream();
            in.transferTo(answer);
            return answer.toString(StandardCharsets.ISO_8859_1);
        }
    }
}
