package dev.keypool.camel.http;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import io.netty.channel.EventLoop;
import io.netty.util.concurrent.EventExecutor;
import io.vertx.core.Future;
import io.vertx.core.Handler;
import io.vertx.core.Promise;
import io.vertx.core.http.HttpConnection;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.impl.HttpServerImpl;
import io.vertx.core.impl.ContextInternal;
import io.vertx.core.impl.VertxInternal;
import io.vertx.core.net.NetServerOptions;
import org.apache.camel.CamelContext;
import org.apache.camel.component.platform.http.vertx.VertxPlatformHttpServer;
import org.apache.camel.component.platform.http.vertx.VertxPlatformHttpServerConfiguration;
import org.apache.camel.support.service.ServiceSupport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import static dev.keypool.camel.http.BeforeListen.privateField;

/**
 * An event loop per core reads the connections of platform-http's servers, not one loop. platform-http makes its server
 * listen from a thread of its own, so Vert.x gives the server one event loop, which then reads every connection, runs
 * every route up to its provider call and writes every answer: in a burst of 9,800 requests at once that loop was busy
 * 1.6 s while the other core mostly idled (bench/README.md, "Bursts against BareProxy, round by round"). Vert.x hands
 * the connections of servers that listen on the same host and port from different event loops to those loops in turn,
 * so one more server listens on each other loop, up to as many loops as cores (more loops than cores contend), just
 * before platform-http's own does: the same options (read after the other {@link BeforeListen} hooks, installed before
 * this one, set theirs), the same router and connection handler. They close as platform-http's server does, when the
 * context stops its services. A server on port 0 (a random port) shares its socket with no other server and is left as
 * it is. A call then stays on the loop that read its request through that loop's provider client ({@link UpstreamClients}),
 * whose clients are made for the loops named in the registry ({@link #of}).
 */
public final class ServerEventLoops {

    private static final Logger LOG = LoggerFactory.getLogger(ServerEventLoops.class);
    private static final long WAIT_SECONDS = 30;

    private ServerEventLoops() {
    }

    /** Under this name in the registry: the event loops that read the servers' connections, once they listen. */
    private static final String REGISTRY_NAME = "keypoolServerEventLoops";

    /** The event loops that read the HTTP servers' connections; none when they listen on one loop (port 0, one core). */
    @SuppressWarnings("unchecked")
    static List<EventLoop> of(CamelContext camel) {
        List<EventLoop> serving = camel.getRegistry().lookupByNameAndType(REGISTRY_NAME, List.class);
        return serving == null ? List.of() : serving;
    }

    /** How many event loops read a server's connections: one per core, as many as Vert.x has at most. */
    static int loops(VertxInternal vertx) {
        int group = 0;
        for (EventExecutor ignored : vertx.getEventLoopGroup()) {
            group++;
        }
        return Math.max(1, Math.min(Runtime.getRuntime().availableProcessors(), group));
    }

    /** On every platform-http server started from now on; install it after the other hooks of {@link BeforeListen}. */
    public static void install(CamelContext camel) {
        BeforeListen.install(camel, "the HTTP server on an event loop per core",
                (server, http, options) -> listenOnALoopPerCore(camel, server, http, options));
    }

    private static void listenOnALoopPerCore(CamelContext camel, VertxPlatformHttpServer server, HttpServer http,
                                          HttpServerOptions options) throws ReflectiveOperationException {
        VertxPlatformHttpServerConfiguration configuration = privateField(VertxPlatformHttpServer.class, "configuration", server);
        int port = configuration.getBindPort();
        VertxInternal vertx = (VertxInternal) server.getVertx();
        int loops = loops(vertx);
        if (port <= 0 || loops < 2) {
            return;
        }
        // platform-http sets its router as the request handler only as it listens: the router is there already
        Handler<HttpServerRequest> router = privateField(VertxPlatformHttpServer.class, "router", server);
        Handler<HttpConnection> connections = privateField(HttpServerImpl.class, "connectionHandler", http);
        Handler<HttpServerRequest> invalidRequests = privateField(HttpServerImpl.class, "invalidRequestHandler", http);
        Handler<Throwable> failures = privateField(HttpServerImpl.class, "exceptionHandler", http);
        NetServerOptions tcp = BeforeListen.tcpOptionsOf(http);
        // platform-http's server listens from this thread, on the context Vert.x keeps for it: its loop reads already
        EventLoop own = ((ContextInternal) vertx.getOrCreateContext()).nettyEventLoop();
        List<EventLoop> others = new ArrayList<>();
        for (EventExecutor loop : vertx.getEventLoopGroup()) {
            if (loop != own && others.size() < loops - 1) {
                others.add((EventLoop) loop);
            }
        }
        List<HttpServer> servers = new ArrayList<>();
        List<Future<HttpServer>> listening = new ArrayList<>();
        for (EventLoop loop : others) {
            HttpServer extra = vertx.createHttpServer(new HttpServerOptions(options));
            // the second copy of the options, the TCP layer's: the TLS handshake's bound is set on the server's own
            BeforeListen.tcpOptionsOf(extra).setSslHandshakeTimeout(tcp.getSslHandshakeTimeout())
                    .setSslHandshakeTimeoutUnit(tcp.getSslHandshakeTimeoutUnit());
            extra.requestHandler(router);
            if (connections != null) {
                extra.connectionHandler(connections);
            }
            if (invalidRequests != null) {
                extra.invalidRequestHandler(invalidRequests);
            }
            if (failures != null) {
                extra.exceptionHandler(failures);
            }
            servers.add(extra);
            // a server listens on the event loop of the context it listens from
            ContextInternal context = vertx.createEventLoopContext(loop, null,
                    Thread.currentThread().getContextClassLoader());
            Promise<HttpServer> listened = Promise.promise();
            context.runOnContext(v -> extra.listen(port, configuration.getBindHost()).onComplete(listened));
            listening.add(listened.future());
        }
        closeOnStop(camel, servers);
        try {
            awaitAll(listening);
        } catch (Exception e) {
            LOG.warn("The HTTP server on {}:{} reads its connections on one event loop: {} more could not listen ({})",
                    configuration.getBindHost(), port, servers.size(), e.toString());
            servers.forEach(HttpServer::close);
            return;
        }
        LOG.info("The HTTP server on {}:{} reads its connections on {} event loops in turn", configuration.getBindHost(), port,
                servers.size() + 1);
        List<EventLoop> serving = new ArrayList<>(others);
        serving.add(0, own);
        camel.getRegistry().bind(REGISTRY_NAME, List.copyOf(serving));
    }

    /**
     * Closes the servers as the context stops its services, just before platform-http's server: the context stops its
     * services in the reverse order it added them, and platform-http's server was added before it started.
     */
    private static void closeOnStop(CamelContext camel, List<HttpServer> servers) {
        try {
            camel.addService(new ServiceSupport() {
                @Override
                protected void doStop() throws Exception {
                    closeAll(servers);
                }
            }, true, true);
        } catch (Exception e) {
            throw new IllegalStateException("cannot close the HTTP server's other listeners with " + camel.getName(), e);
        }
    }

    private static void closeAll(List<HttpServer> servers) throws Exception {
        awaitAll(servers.stream().map(HttpServer::close).toList());
    }

    private static void awaitAll(List<? extends Future<?>> futures) throws Exception {
        Future.all(futures).toCompletionStage().toCompletableFuture().get(WAIT_SECONDS, TimeUnit.SECONDS);
    }
}
