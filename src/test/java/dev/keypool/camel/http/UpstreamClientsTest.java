package dev.keypool.camel.http;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;

import dev.keypool.config.ProviderConfig.Http2;
import dev.keypool.testing.TestCertificate;
import io.netty.channel.EventLoop;
import io.netty.util.concurrent.EventExecutor;
import io.vertx.core.Context;
import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import io.vertx.core.http.HttpConnection;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.http.HttpVersion;
import io.vertx.core.http.RequestOptions;
import io.vertx.core.impl.ContextInternal;
import io.vertx.core.impl.VertxInternal;
import io.vertx.core.net.PfxOptions;
import io.vertx.ext.web.client.WebClientOptions;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Which Vert.x client a provider call goes out on: that of an event loop (Vert.x's pool hands out a free connection
 * whatever its loop, so a shared client sends a call read on one loop from another): the loop that read its request,
 * wherever it is sent from, each loop's pool with its share of the provider's connections, HTTP/1.1 and HTTP/2 alike;
 * over HTTP/2, a loop with no share of its own sends through a loop that has one.
 */
class UpstreamClientsTest {

    private static final UpstreamClients.Transport PLAIN = new UpstreamClients.Transport(false, Http2.AUTO, null);
    private static final UpstreamClients.Transport HTTP2 = new UpstreamClients.Transport(true, Http2.AUTO, null);

    private final Vertx vertx = Vertx.vertx(new VertxOptions().setEventLoopPoolSize(2));
    /** 4 HTTP/1.1 connections per provider at most, 2 a loop. */
    private final UpstreamClients clients = new UpstreamClients(vertx, new WebClientOptions().setMaxPoolSize(4), 4, 1_000);

    @AfterEach
    void close() {
        clients.close();
        vertx.close().toCompletionStage().toCompletableFuture().join();
    }

    @Test
    void should_give_each_event_loop_its_own_http1_client() throws Exception {
        Context first = onLoop(0);
        Context second = onLoop(1);
        Context onFirstAgain = onLoop(0);

        UpstreamClients.Client fromFirst = clientOn(first, PLAIN);

        assertThat(clientOn(second, PLAIN)).isNotSameAs(fromFirst);
        assertThat(clientOn(onFirstAgain, PLAIN)).as("a context on the first loop again").isSameAs(fromFirst);
        assertThat(clients.client(PLAIN)).as("from a thread of no event loop: one of the loops'")
                .isIn(fromFirst, clientOn(second, PLAIN));
    }

    @Test
    void should_give_the_loops_the_server_reads_on_the_clients_whoever_calls_first() throws Exception {
        EventLoop serving = ((ContextInternal) onLoop(1)).nettyEventLoop();
        UpstreamClients oneLoop = new UpstreamClients(vertx, new WebClientOptions().setMaxPoolSize(4), List.of(serving),
                4, 1_000);
        try {
            // a call of no request first (a probe at start), then one from a loop the server does not read on
            ContextInternal fromNoLoop = oneLoop.sendingContext(PLAIN, null);
            ContextInternal fromOtherLoop = oneLoop.sendingContext(PLAIN, onLoop(0));

            assertThat(fromNoLoop.nettyEventLoop()).isSameAs(serving);
            assertThat(fromOtherLoop.nettyEventLoop()).isSameAs(serving);
        } finally {
            oneLoop.close();
        }
    }

    @Test
    void should_send_a_call_from_the_loop_that_read_its_request_wherever_it_is_sent_from() throws Exception {
        Context second = onLoop(1);

        ContextInternal from = clients.sendingContext(PLAIN, second);

        assertThat(from.nettyEventLoop()).isSameAs(((ContextInternal) second).nettyEventLoop());
        assertThat(clientOn(from, PLAIN)).isSameAs(clientOn(onLoop(1), PLAIN));
        ContextInternal http2From = clients.sendingContext(HTTP2, second);
        assertThat(http2From.nettyEventLoop()).as("HTTP/2").isSameAs(((ContextInternal) second).nettyEventLoop());
        assertThat(clientOn(http2From, HTTP2)).isSameAs(clientOn(onLoop(1), HTTP2));
    }

    @Test
    void should_open_no_more_http1_connections_to_a_provider_than_its_bound_across_the_loops() throws Exception {
        // a provider that holds every call: each call in flight holds a connection of its own
        Set<HttpConnection> opened = ConcurrentHashMap.newKeySet();
        HttpServer provider = vertx.createHttpServer().connectionHandler(opened::add).requestHandler(request -> { });
        int port = provider.listen(0).toCompletionStage().toCompletableFuture().get().actualPort();
        try {
            // 3 calls from each loop and 3 from no loop, against a bound of 4 connections
            for (Context context : List.of(onLoop(0), onLoop(1))) {
                for (int i = 0; i < 3; i++) {
                    context.runOnContext(v -> call(port));
                }
            }
            for (int i = 0; i < 3; i++) {
                call(port);
            }

            await().atMost(Duration.ofSeconds(10)).until(() -> opened.size() == 4);
            // the calls past the bound wait for a connection; none opens
            assertThat(opened).hasSize(4);
            await().during(Duration.ofMillis(300)).atMost(Duration.ofSeconds(2)).until(() -> opened.size() == 4);
        } finally {
            provider.close();
        }
    }

    private void call(int port) {
        clients.client(PLAIN).http().request(new RequestOptions().setHost("127.0.0.1").setPort(port).setURI("/"))
                .onSuccess(request -> request.end());
    }

    @Test
    void should_give_each_event_loop_its_own_http2_client() throws Exception {
        UpstreamClients.Client fromFirst = clientOn(onLoop(0), HTTP2);

        assertThat(clientOn(onLoop(1), HTTP2)).isNotSameAs(fromFirst);
        assertThat(clientOn(onLoop(0), HTTP2)).as("a context on the first loop again").isSameAs(fromFirst);
        assertThat(clientOn(onLoop(0), PLAIN)).as("another transport").isNotSameAs(fromFirst);
    }

    @Test
    void should_send_the_http2_calls_of_a_loop_without_a_connection_of_its_own_through_a_loop_that_has_one()
            throws Exception {
        UpstreamClients oneConnection = new UpstreamClients(vertx, new WebClientOptions().setMaxPoolSize(4), 1, 1_000);
        try {
            Context first = onLoop(0);
            Context second = onLoop(1);
            EventLoop firstLoop = oneConnection.sendingContext(HTTP2, first).nettyEventLoop();

            assertThat(oneConnection.sendingContext(HTTP2, second).nettyEventLoop()).isSameAs(firstLoop);
            assertThat(clientOn(oneConnection, second, HTTP2)).isSameAs(clientOn(oneConnection, first, HTTP2));
            assertThat(oneConnection.sendingContext(PLAIN, second).nettyEventLoop())
                    .as("HTTP/1.1: a connection each").isSameAs(((ContextInternal) second).nettyEventLoop());
        } finally {
            oneConnection.close();
        }
    }

    @Test
    void should_open_no_more_http2_connections_to_a_provider_than_its_bound_across_the_loops(@TempDir Path dir)
            throws Exception {
        TestCertificate certificate = TestCertificate.create(dir);
        // a provider that holds every call and takes one at a time on a connection: each call in flight holds one
        HttpServerOptions tls = new HttpServerOptions().setSsl(true).setUseAlpn(true)
                .setKeyCertOptions(new PfxOptions().setPath(certificate.keyStore().toString())
                        .setPassword(certificate.password()));
        tls.getInitialSettings().setMaxConcurrentStreams(1);
        Set<HttpConnection> opened = ConcurrentHashMap.newKeySet();
        Set<HttpVersion> versions = ConcurrentHashMap.newKeySet();
        HttpServer provider = vertx.createHttpServer(tls).connectionHandler(opened::add)
                .requestHandler(request -> versions.add(request.version()));
        int port = provider.listen(0, "127.0.0.1").toCompletionStage().toCompletableFuture().get().actualPort();
        UpstreamClients.Transport trusting = new UpstreamClients.Transport(true, Http2.AUTO, certificate.pem());
        // 3 HTTP/2 connections per provider at most: 2 for the first loop, 1 for the second
        UpstreamClients threeConnections = new UpstreamClients(vertx, new WebClientOptions().setMaxPoolSize(4), 3,
                10_000);
        try {
            // 3 calls from each loop and 3 from no loop, against a bound of 3 connections
            for (Context context : List.of(onLoop(0), onLoop(1))) {
                for (int i = 0; i < 3; i++) {
                    context.runOnContext(v -> call(threeConnections, trusting, port));
                }
            }
            for (int i = 0; i < 3; i++) {
                call(threeConnections, trusting, port);
            }

            await().atMost(Duration.ofSeconds(20)).until(() -> opened.size() == 3);
            // the calls past the bound wait for a stream; no connection opens
            await().during(Duration.ofMillis(300)).atMost(Duration.ofSeconds(2)).until(() -> opened.size() == 3);
            assertThat(versions).containsExactly(HttpVersion.HTTP_2);
        } finally {
            threeConnections.close();
            provider.close();
        }
    }

    private static void call(UpstreamClients clients, UpstreamClients.Transport transport, int port) {
        clients.client(transport).http().request(new RequestOptions().setHost("127.0.0.1").setPort(port).setURI("/"))
                .onSuccess(request -> request.end());
    }

    /** A new context on the Vert.x's event loop number {@code index}. */
    private Context onLoop(int index) {
        VertxInternal internal = (VertxInternal) vertx;
        List<EventExecutor> loops = new ArrayList<>();
        internal.getEventLoopGroup().forEach(loops::add);
        return internal.createEventLoopContext((EventLoop) loops.get(index), null, getClass().getClassLoader());
    }

    /** The client a call of this transport would take on the context's event loop. */
    private UpstreamClients.Client clientOn(Context context, UpstreamClients.Transport transport) throws Exception {
        return clientOn(clients, context, transport);
    }

    private static UpstreamClients.Client clientOn(UpstreamClients clients, Context context,
                                                   UpstreamClients.Transport transport) throws Exception {
        CompletableFuture<UpstreamClients.Client> taken = new CompletableFuture<>();
        context.runOnContext(v -> taken.complete(clients.client(transport)));
        return taken.get();
    }
}
