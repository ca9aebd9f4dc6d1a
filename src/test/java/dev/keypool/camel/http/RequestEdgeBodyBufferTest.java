package dev.keypool.camel.http;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.buffer.impl.BufferImpl;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServer;
import io.vertx.ext.web.Router;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A request holds the buffer its body was read into for as long as it is in flight: the edge's body handler makes it
 * to the body's Content-Length, not Vert.x's 1 KiB start for every body.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class RequestEdgeBodyBufferTest {

    private final Vertx vertx = Vertx.vertx();
    private final CompletableFuture<Integer> capacity = new CompletableFuture<>();
    private HttpServer server;
    private HttpClient client;

    @BeforeAll
    void start() throws Exception {
        Router router = Router.router(vertx);
        router.route().handler(RequestEdge.bodyHandler(1 << 20)).handler(context -> {
            // the buffer itself: getByteBuf() would give a slice of its readable bytes
            capacity.complete(((BufferImpl) context.body().buffer()).byteBuf().capacity());
            context.response().end();
        });
        server = vertx.createHttpServer().requestHandler(router).listen(0, "127.0.0.1")
                .toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
        client = vertx.createHttpClient();
    }

    @AfterAll
    void stop() {
        vertx.close().toCompletionStage().toCompletableFuture().join();
    }

    @Test
    void should_read_a_small_body_into_a_buffer_of_its_size() throws Exception {
        String body = "{\"model\":\"gpt-4o-mini\",\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}";

        int status = client.request(HttpMethod.POST, server.actualPort(), "127.0.0.1", "/v1/chat/completions")
                .compose(request -> request.send(Buffer.buffer(body)))
                .map(response -> response.statusCode())
                .toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);

        assertThat(status).isEqualTo(200);
        assertThat(capacity.get(10, TimeUnit.SECONDS)).isEqualTo(body.length());
    }
}
