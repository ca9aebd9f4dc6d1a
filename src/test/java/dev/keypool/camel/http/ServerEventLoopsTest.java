package dev.keypool.camel.http;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.HashSet;
import java.util.Set;

import dev.keypool.testing.FreePorts;
import io.netty.channel.EventLoop;
import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import org.apache.camel.CamelContext;
import org.apache.camel.component.platform.http.vertx.VertxPlatformHttpRouter;
import org.apache.camel.component.platform.http.vertx.VertxPlatformHttpServer;
import org.apache.camel.component.platform.http.vertx.VertxPlatformHttpServerConfiguration;
import org.apache.camel.impl.DefaultCamelContext;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;

/**
 * platform-http's server with {@link ServerEventLoops}: its connections are read on as many event loops of the Vert.x as
 * there are cores, in turn, not all on one, and the port is free again once the context has stopped.
 */
class ServerEventLoopsTest {

    private static final int EVENT_LOOPS = 4;

    private final Vertx vertx = Vertx.vertx(new VertxOptions().setEventLoopPoolSize(EVENT_LOOPS));
    private CamelContext context;

    @AfterEach
    void stop() {
        if (context != null) {
            context.stop();
        }
        vertx.close().toCompletionStage().toCompletableFuture().join();
    }

    @Test
    void should_read_the_connections_on_an_event_loop_per_core_in_turn() throws Exception {
        int port = start(true);

        Set<String> loops = new HashSet<>();
        for (int i = 0; i < 2 * EVENT_LOOPS; i++) {
            loops.add(answerOnNewConnection(port));
        }

        // as many loops as the machine has cores, up to the Vert.x's
        assertThat(loops).hasSize(Math.min(Runtime.getRuntime().availableProcessors(), EVENT_LOOPS))
                .allMatch(name -> name.startsWith("vert.x-eventloop-thread-"));
    }

    @Test
    void should_name_the_loops_it_reads_on_for_the_provider_clients() throws Exception {
        int port = start(true);
        Set<String> answeredOn = new HashSet<>();
        for (int i = 0; i < 2 * EVENT_LOOPS; i++) {
            answeredOn.add(answerOnNewConnection(port));
        }

        Set<String> named = new HashSet<>();
        for (EventLoop loop : ServerEventLoops.of(context)) {
            named.add(loop.submit(() -> Thread.currentThread().getName()).get());
        }

        // on one core the server reads on one loop, and names none
        assertThat(named).isEqualTo(Runtime.getRuntime().availableProcessors() < 2 ? Set.of() : answeredOn);
    }

    @Test
    void should_read_them_all_on_one_event_loop_without_it() throws Exception {
        int port = start(false);

        Set<String> loops = new HashSet<>();
        for (int i = 0; i < 2 * EVENT_LOOPS; i++) {
            loops.add(answerOnNewConnection(port));
        }

        assertThat(loops).hasSize(1);
    }

    @Test
    void should_free_the_port_once_the_context_has_stopped() throws Exception {
        int port = start(true);
        answerOnNewConnection(port);

        context.stop();

        assertThatCode(() -> {
            try (ServerSocket again = new ServerSocket()) {
                again.bind(new InetSocketAddress("127.0.0.1", port));
            }
        }).doesNotThrowAnyException();
    }

    /** A context with platform-http's server on a free port, whose router answers with the name of its thread. */
    private int start(boolean onEveryLoop) throws Exception {
        int port = FreePorts.next();
        VertxPlatformHttpServerConfiguration configuration = new VertxPlatformHttpServerConfiguration();
        configuration.setBindHost("127.0.0.1");
        configuration.setBindPort(port);
        context = new DefaultCamelContext();
        context.getRegistry().bind("vertx", vertx);
        if (onEveryLoop) {
            ServerEventLoops.install(context);
        }
        context.addService(new VertxPlatformHttpServer(configuration));
        context.start();
        VertxPlatformHttpRouter router = context.getRegistry().findSingleByType(VertxPlatformHttpRouter.class);
        router.route("/loop").handler(request -> request.response().end(Thread.currentThread().getName()));
        return port;
    }

    /** The body of GET /loop on a connection of its own, closed after the answer. */
    private static String answerOnNewConnection(int port) throws IOException {
        try (Socket socket = new Socket("127.0.0.1", port)) {
            socket.setSoTimeout(10_000);
            OutputStream out = socket.getOutputStream();
            out.write("GET /loop HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
            out.flush();
            InputStream in = socket.getInputStream();
            String answer = new String(in.readAllBytes(), StandardCharsets.UTF_8);
            assertThat(answer).startsWith("HTTP/1.1 200");
            return answer.substring(answer.indexOf("\r\n\r\n") + 4);
        }
    }
}
