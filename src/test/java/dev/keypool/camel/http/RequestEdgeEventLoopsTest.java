package dev.keypool.camel.http;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import dev.keypool.camel.pipeline.TenantGate;
import dev.keypool.gateway.BodyBudget;
import dev.keypool.gateway.BodyLimits;
import dev.keypool.tenant.Tenants;
import dev.keypool.testing.FreePorts;
import io.vertx.core.AbstractVerticle;
import io.vertx.core.DeploymentOptions;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.PoolOptions;
import io.vertx.ext.web.Router;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The edge runs on every event loop that reads the server's connections (ServerEventLoops), at the same moment: the
 * first requests after a start, read on two loops together, each get through it. Each round starts a new edge (a new
 * start) and holds one request on each loop until both stand at the edge, then lets them in together.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class RequestEdgeEventLoopsTest {

    private static final int ROUNDS = 300;
    private static final String BODY = "{\"model\":\"gpt-4o-mini\",\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}";

    @TempDir
    Path dir;
    private final Vertx vertx = Vertx.vertx(new VertxOptions().setEventLoopPoolSize(2));
    /** The router of the round: each round a new edge, as after a start. */
    private final AtomicReference<Router> current = new AtomicReference<>();
    /** The requests of the round that stand before the edge. */
    private final AtomicInteger atTheEdge = new AtomicInteger();
    /** The client's own loops: the server's two are held, each by a request, while a round's two meet. */
    private final Vertx clientVertx = Vertx.vertx();
    /** What failed a request inside the router (a 500): the assertion names it. */
    private final List<Throwable> failures = new CopyOnWriteArrayList<>();
    private int port;
    private HttpClient client;

    @BeforeAll
    void start() throws Exception {
        port = FreePorts.next();
        // two servers on one port, each on its own event loop: Vert.x hands them the connections in turn
        vertx.deployVerticle(() -> new AbstractVerticle() {
            @Override
            public void start(Promise<Void> started) {
                vertx.createHttpServer().requestHandler(request -> current.get().handle(request))
                        .listen(port, "127.0.0.1").<Void>mapEmpty().onComplete(started);
            }
        }, new DeploymentOptions().setInstances(2)).toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
        // a connection per request: Vert.x hands new connections to the two servers in turn, so a round's two requests,
        // sent together, are read one on each loop
        client = clientVertx.createHttpClient(new HttpClientOptions().setKeepAlive(false), new PoolOptions().setHttp1MaxSize(2));
    }

    @AfterAll
    void stop() {
        clientVertx.close().toCompletionStage().toCompletableFuture().join();
        vertx.close().toCompletionStage().toCompletableFuture().join();
    }

    @Test
    void should_let_through_the_first_requests_read_on_two_event_loops_at_once() throws Exception {
        List<Integer> statuses = new ArrayList<>();
        for (int round = 0; round < ROUNDS; round++) {
            current.set(routerWithNewEdge());
            atTheEdge.set(0);
            Future<Integer> one = chat();
            Future<Integer> other = chat();
            statuses.add(one.toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS));
            statuses.add(other.toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS));
        }

        assertThat(failures).isEmpty();
        assertThat(statuses).hasSize(2 * ROUNDS).containsOnly(200);
    }

    private Router routerWithNewEdge() {
        RequestEdge edge = new RequestEdge(vertx, new BodyLimits(1 << 20, 25 << 20, 100 << 20, Long.MAX_VALUE,
                Set.of("/v1/files")), new BodyBudget(64 << 20), new BodyBudget(64 << 20),
                new TenantGate(new Tenants(List.of())), new SpooledUploads(dir.resolve("uploads")), 30_000, null);
        Router router = Router.router(vertx);
        // before the edge: a request waits here (spinning, so that both go on within the same microsecond; it holds its
        // loop) until the other loop's stands here too
        router.route().order(Integer.MIN_VALUE).handler(context -> {
            awaitTheOther();
            context.next();
        });
        edge.install(router);
        router.route().handler(context -> context.response().end(String.valueOf(context.body().length())));
        router.route().failureHandler(context -> {
            failures.add(context.failure());
            context.response().setStatusCode(500).end();
        });
        return router;
    }

    /** Both requests of a round meet here when they came on different loops; on one loop the first goes on alone. */
    private void awaitTheOther() {
        atTheEdge.incrementAndGet();
        long until = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(100);
        while (atTheEdge.get() < 2 && System.nanoTime() < until) {
            Thread.onSpinWait();
        }
    }

    private Future<Integer> chat() {
        return client.request(HttpMethod.POST, port, "127.0.0.1", "/v1/chat/completions")
                .compose(request -> request.putHeader("Content-Type", "application/json").send(Buffer.buffer(BODY)))
                .map(response -> response.statusCode());
    }
}
