package dev.keypool.camel.http;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import dev.keypool.testing.FreePorts;
import org.apache.camel.AsyncCallback;
import org.apache.camel.AsyncProcessor;
import org.apache.camel.CamelContext;
import org.apache.camel.Exchange;
import org.apache.camel.builder.RouteBuilder;
import org.apache.camel.component.platform.http.PlatformHttpConstants;
import org.apache.camel.component.platform.http.vertx.VertxPlatformHttpServer;
import org.apache.camel.component.platform.http.vertx.VertxPlatformHttpServerConfiguration;
import org.apache.camel.impl.DefaultCamelContext;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * platform-http through {@link GatewayHttpEngine}: a route that waits for something asynchronously holds no request
 * thread meanwhile, and its answer is written by the thread that ends the route; what platform-http does besides (form
 * fields as headers) and its answers to failures stay as they were.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class GatewayHttpEngineTest {

    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private final ExecutorService completers = Executors.newCachedThreadPool(r -> new Thread(r, "provider-answer"));
    private final AtomicBoolean requestThreadHeld = new AtomicBoolean();
    private CamelContext context;
    private int port;

    @BeforeAll
    void start() throws Exception {
        port = FreePorts.next();
        VertxPlatformHttpServerConfiguration server = new VertxPlatformHttpServerConfiguration();
        server.setBindHost("127.0.0.1");
        server.setBindPort(port);
        context = new DefaultCamelContext();
        context.addService(new VertxPlatformHttpServer(server));
        context.getRegistry().bind(PlatformHttpConstants.PLATFORM_HTTP_ENGINE_NAME, new GatewayHttpEngine(false, false));
        // a lambda, not a RouteBuilder subclass: Camel Main in the other tests scans this package for those
        RouteBuilder.addRoutes(context, routes -> {
            routes.from("platform-http:/waits")
                    .process(new AnsweredLater())
                    .process(e -> e.getMessage().setBody("answered on " + Thread.currentThread().getName()));
            routes.from("platform-http:/form?httpMethodRestrict=POST")
                    .process(e -> e.getMessage().setBody("colour=" + e.getMessage().getHeader("colour")));
            routes.from("platform-http:/fails")
                    .process(e -> {
                        throw new IllegalStateException("the gateway's own fault");
                    });
        });
        context.start();
    }

    @AfterAll
    void stop() {
        context.stop();
        completers.shutdownNow();
    }

    @Test
    void should_hold_no_request_thread_while_the_route_waits_and_answer_from_the_thread_that_ends_it() throws Exception {
        HttpResponse<String> answer = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/waits"))
                .timeout(Duration.ofSeconds(20)).GET().build(), HttpResponse.BodyHandlers.ofString());

        assertThat(answer.statusCode()).isEqualTo(200);
        // platform-http's own consumer parks the request thread in the route until the answer is there
        assertThat(requestThreadHeld).as("the request thread was still in the route while it waited").isFalse();
        assertThat(answer.body()).isEqualTo("answered on provider-answer");
    }

    @Test
    void should_copy_form_fields_into_headers_as_platform_http_does() throws Exception {
        HttpResponse<String> answer = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/form"))
                .header("Content-Type", "application/x-www-form-urlencoded")
                .POST(HttpRequest.BodyPublishers.ofString("colour=blue")).build(), HttpResponse.BodyHandlers.ofString());

        assertThat(answer.statusCode()).isEqualTo(200);
        assertThat(answer.body()).isEqualTo("colour=blue");
    }

    @Test
    void should_answer_a_failed_route_with_500_as_platform_http_does() throws Exception {
        HttpResponse<String> answer = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/fails"))
                .GET().build(), HttpResponse.BodyHandlers.ofString());

        assertThat(answer.statusCode()).isEqualTo(500);
    }

    /**
     * Like the provider call: goes asynchronous on the request thread and completes on another thread, once the request
     * thread has left the route (or after 5 s, noted as held).
     */
    private final class AnsweredLater implements AsyncProcessor {
        @Override
        public boolean process(Exchange exchange, AsyncCallback callback) {
            Thread caller = Thread.currentThread();
            completers.execute(() -> {
                try {
                    await().atMost(5, TimeUnit.SECONDS).until(() -> !inTheRoute(caller));
                } catch (RuntimeException held) {
                    requestThreadHeld.set(true);
                }
                callback.done(false);
            });
            return false;
        }

        @Override
        public void process(Exchange exchange) {
            throw new UnsupportedOperationException("asynchronous only");
        }

        @Override
        public CompletableFuture<Exchange> processAsync(Exchange exchange) {
            throw new UnsupportedOperationException("asynchronous only");
        }

        private boolean inTheRoute(Thread thread) {
            return thread.isAlive() && Arrays.stream(thread.getStackTrace())
                    .anyMatch(frame -> frame.getClassName().startsWith("org.apache.camel.component.platform.http")
                            || frame.getClassName().startsWith(GatewayHttpEngine.class.getName()));
        }
    }
}
