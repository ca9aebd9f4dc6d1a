package dev.keypool.camel.http;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import dev.keypool.config.ProviderConfig.Http2;
import io.netty.channel.EventLoop;
import io.netty.util.concurrent.EventExecutor;
import io.vertx.core.Context;
import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import io.vertx.core.impl.VertxInternal;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Which Vert.x client a provider call goes out on: over HTTP/1.1 from an event loop, that loop's own (Vert.x's pool
 * hands out its most recently used free connection whatever its loop, so a shared client sends a call read on one loop
 * from another); over HTTP/2, or from any other thread, the transport's one.
 */
class UpstreamClientsTest {

    private static final UpstreamClients.Transport PLAIN = new UpstreamClients.Transport(false, Http2.AUTO, null);
    private static final UpstreamClients.Transport HTTP2 = new UpstreamClients.Transport(true, Http2.AUTO, null);

    private final Vertx vertx = Vertx.vertx(new VertxOptions().setEventLoopPoolSize(2));
    private final UpstreamClients clients = new UpstreamClients(vertx, null, 4, 1_000);

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
        assertThat(clients.client(PLAIN)).as("from a thread of no event loop").isNotSameAs(fromFirst);
    }

    @Test
    void should_share_one_http2_client_across_event_loops() throws Exception {
        assertThat(clientOn(onLoop(0), HTTP2)).isSameAs(clientOn(onLoop(1), HTTP2))
                .isSameAs(clients.client(HTTP2));
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
        CompletableFuture<UpstreamClients.Client> taken = new CompletableFuture<>();
        context.runOnContext(v -> taken.complete(clients.client(transport)));
        return taken.get();
    }
}
