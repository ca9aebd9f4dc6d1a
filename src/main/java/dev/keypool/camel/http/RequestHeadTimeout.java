package dev.keypool.camel.http;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

import io.vertx.core.Context;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpConnection;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.net.NetServerOptions;
import io.vertx.core.net.impl.ConnectionBase;
import io.vertx.ext.web.RoutingContext;
import org.apache.camel.CamelContext;
import org.apache.camel.component.platform.http.vertx.VertxPlatformHttpRouter;
import org.apache.camel.component.platform.http.vertx.VertxPlatformHttpServer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Closes an HTTP connection that has not delivered a complete request head within {@code keypool.request-header-timeout-ms}
 * of opening, or of the end of its previous exchange: a client that dribbles its request line and headers, or keeps
 * a connection idle, holds it no longer (nginx's {@code client_header_timeout} and {@code keepalive_timeout} in one
 * timer, as the server does not see a head's first bytes). No answer is written: there is no request to answer. A
 * connection with a request in flight has no timer: its body is bounded by {@link RequestEdge}'s read timeout, and
 * the wait on its provider or the relay of its stream is not limited here.
 * <p>
 * Vert.x has no such timeout, and its idle timeout would also cut a request waiting on a slow provider. The timer
 * needs a connection handler, which Vert.x takes only before the server listens ({@link BeforeListen}). The server then
 * speaks no cleartext HTTP/2 (h2c), whose connections Vert.x makes known only after their first request.
 * <p>
 * A connection is not known at once on a TLS listener: after its handshake, and for HTTP/2 only once the client's
 * preface and SETTINGS are in. The handshake is held to the same bound (at most Vert.x's own 10 s); after it, Vert.x's
 * idle timeout, set to the same bound, closes a connection that sends nothing (a client that stopped after the
 * handshake held its socket for good before); once a connection is known, its idle handler is taken out of its
 * pipeline and the timer here watches it instead.
 */
final class RequestHeadTimeout {

    private static final Logger LOG = LoggerFactory.getLogger(RequestHeadTimeout.class);
    /** The name of the handler Vert.x puts in a connection's pipeline for its idle timeout. */
    private static final String IDLE = "idle";

    private final CamelContext camel;
    private final long timeoutMs;
    /** The connections of the watched servers that are open, each with its timer. */
    private final Map<HttpConnection, Watch> watched = new ConcurrentHashMap<>();

    private RequestHeadTimeout(CamelContext camel, long timeoutMs) {
        this.camel = camel;
        this.timeoutMs = timeoutMs;
    }

    /** Watches the connections of every platform-http server started from now on; {@code timeoutMs} 0 watches none. */
    static void install(CamelContext camel, long timeoutMs) {
        if (timeoutMs <= 0) {
            return;
        }
        RequestHeadTimeout heads = new RequestHeadTimeout(camel, timeoutMs);
        BeforeListen.install(camel, "keypool.request-header-timeout-ms", heads::watch);
    }

    private void watch(VertxPlatformHttpServer server, HttpServer http, HttpServerOptions options) {
        VertxPlatformHttpRouter router = camel.getRegistry().findByType(VertxPlatformHttpRouter.class).stream()
                .filter(r -> r.getServer() == server).findFirst().orElse(null);
        if (router == null) {
            LOG.warn("keypool.request-header-timeout-ms is not applied: platform-http's router was not there before its "
                    + "server listened");
            return;
        }
        // Vert.x makes a cleartext connection known only after its first request, when that may ask to upgrade to
        // HTTP/2 (h2c): without h2c it is known as it opens (HTTP/2 over TLS is unchanged)
        options.setHttp2ClearTextEnabled(false);
        // a connection that is not known yet (TLS: before its HTTP/2 preface) is closed after as long without a byte,
        // and its handshake takes no longer either
        options.setIdleTimeout((int) Math.min(Integer.MAX_VALUE, timeoutMs)).setIdleTimeoutUnit(TimeUnit.MILLISECONDS);
        NetServerOptions tls = BeforeListen.tcpOptionsOf(http);
        long handshakeMs = tls.getSslHandshakeTimeoutUnit().toMillis(tls.getSslHandshakeTimeout());
        tls.setSslHandshakeTimeout(Math.min(handshakeMs, timeoutMs)).setSslHandshakeTimeoutUnit(TimeUnit.MILLISECONDS);
        http.connectionHandler(this::connected);
        // before every other handler, so that a request held back (ReloadGate) holds no timer
        router.route().order(Integer.MIN_VALUE).handler(this::requestHead);
        LOG.info("A connection without a complete request head {} ms after it opened or its last answer is closed "
                + "(keypool.request-header-timeout-ms)", timeoutMs);
    }

    /** On the connection's event loop. */
    private void connected(HttpConnection connection) {
        // the idle timeout was for the time before: from now on it would cut a request waiting on its provider
        if (connection instanceof ConnectionBase known && known.channelHandlerContext().pipeline().get(IDLE) != null) {
            known.channelHandlerContext().pipeline().remove(IDLE);
        }
        Watch watch = new Watch(connection, Vertx.currentContext());
        watched.put(connection, watch);
        connection.closeHandler(v -> {
            watched.remove(connection);
            watch.cancel();
        });
        watch.arm();
    }

    /** A request's head is all there (on the connection's event loop). */
    private void requestHead(RoutingContext context) {
        Watch watch = watched.get(context.request().connection());
        if (watch != null) {
            watch.started();
            context.addEndHandler(v -> watch.ended(context.request().isEnded()));
        }
        context.next();
    }

    /** One connection's timer; all of it runs on the connection's event loop. */
    private final class Watch {

        private final HttpConnection connection;
        private final Context loop;
        private int inFlight;
        private long timer = -1;

        Watch(HttpConnection connection, Context loop) {
            this.connection = connection;
            this.loop = loop;
        }

        void arm() {
            cancel();
            timer = loop.owner().setTimer(timeoutMs, id -> {
                timer = -1;
                if (inFlight == 0) {
                    connection.close();
                }
            });
        }

        void started() {
            inFlight++;
            cancel();
        }

        /** An exchange ended; the answer may have been written from a request thread. */
        void ended(boolean requestRead) {
            if (Vertx.currentContext() != loop) {
                loop.runOnContext(v -> ended(requestRead));
                return;
            }
            // a request answered before its body was all there is closed by RequestEdge after a while
            if (--inFlight == 0 && requestRead) {
                arm();
            }
        }

        void cancel() {
            if (timer != -1) {
                loop.owner().cancelTimer(timer);
                timer = -1;
            }
        }
    }
}
