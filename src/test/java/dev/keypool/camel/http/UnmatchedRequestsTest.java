package dev.keypool.camel.http;

import java.time.Clock;
import java.util.concurrent.TimeUnit;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.keypool.camel.pipeline.GatewayResponses;
import dev.keypool.metrics.GatewayMetrics;
import dev.keypool.testing.LogCapture;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServer;
import io.vertx.ext.web.Router;
import org.apache.logging.log4j.Level;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What no route answers is answered in the API's error shape; a failure of the gateway's own outside every route is
 * answered 500 and logged, by its class alone.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class UnmatchedRequestsTest {

    private final Vertx vertx = Vertx.vertx();
    private HttpServer server;
    private HttpClient client;

    @BeforeAll
    void start() throws Exception {
        Router router = Router.router(vertx);
        router.post("/v1/chat/completions").handler(context -> {
            throw new IllegalStateException("sk-secret-in-a-message");
        });
        UnmatchedRequests.install(router, new GatewayResponses(new ObjectMapper(), Clock.systemUTC(),
                new GatewayMetrics(new SimpleMeterRegistry()), null));
        server = vertx.createHttpServer().requestHandler(router).listen(0, "127.0.0.1")
                .toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
        client = vertx.createHttpClient();
    }

    @AfterAll
    void stop() {
        vertx.close().toCompletionStage().toCompletableFuture().join();
    }

    @Test
    void should_answer_500_and_log_the_failure_class_when_a_handler_fails_outside_a_route() throws Exception {
        try (LogCapture captured = LogCapture.of(UnmatchedRequests.class)) {
            Answer answer = send(HttpMethod.POST, "/v1/chat/completions");

            assertThat(answer.status()).isEqualTo(500);
            assertThat(answer.body()).contains("\"code\":\"internal_error\"");
            assertThat(captured.messages(Level.WARN)).containsExactly(
                    "Request failed before or outside its route: POST /v1/chat/completions: java.lang.IllegalStateException");
            assertThat(captured.all()).doesNotContain("sk-secret");
        }
    }

    @Test
    void should_answer_404_without_a_warning_for_a_path_nobody_serves() throws Exception {
        try (LogCapture captured = LogCapture.of(UnmatchedRequests.class)) {
            Answer answer = send(HttpMethod.GET, "/v1/nothing-here");

            assertThat(answer.status()).isEqualTo(404);
            assertThat(answer.body()).contains("\"code\":\"unknown_url\"");
            assertThat(captured.messages(Level.WARN)).isEmpty();
        }
    }

    private record Answer(int status, String body) {
    }

    private Answer send(HttpMethod method, String path) throws Exception {
        // the body asked for inside the send's continuation: asked from this thread, outside Vert.x, after the head, the
        // answer's end may already have gone by and the body future never completes (a known race of Vert.x's client)
        return client.request(method, server.actualPort(), "127.0.0.1", path)
                .compose(request -> request.send(Buffer.buffer("{}"))
                        .compose(response -> response.body().map(body -> new Answer(response.statusCode(), body.toString()))))
                .toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
    }
}
