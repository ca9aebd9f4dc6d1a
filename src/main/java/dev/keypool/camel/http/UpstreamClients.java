package dev.keypool.camel.http;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import dev.keypool.config.CaCertificates;
import dev.keypool.config.ChannelConfig;
import dev.keypool.config.ProviderConfig.Http2;
import io.netty.channel.EventLoop;
import io.vertx.core.Context;
import io.vertx.core.Vertx;
import io.vertx.core.impl.ContextInternal;
import io.vertx.core.impl.VertxInternal;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpVersion;
import io.vertx.core.net.TrustOptions;
import io.vertx.ext.web.client.WebClient;
import io.vertx.ext.web.client.WebClientOptions;
import io.vertx.ext.web.client.impl.WebClientInternal;

/**
 * The Vert.x clients of the provider calls: one per way of reaching a provider (TLS or not, HTTP/2 offered or not,
 * the CA file trusted besides the JVM's) and event loop that reads the HTTP server's connections, shared by every
 * vertx-http endpoint that reaches providers that way; a loop's client carries the calls of the requests that loop
 * read, wherever they are sent from. Each client keeps one pool of connections per provider (host and port), up to its
 * loop's share of the bound (divided among the loops, so that a provider has no more in all): HTTP/1.1 connections of
 * {@code http1Connections}, one call each; HTTP/2 connections of {@code http2Connections}, each carrying up to 100 calls
 * at once (fewer if its provider's SETTINGS_MAX_CONCURRENT_STREAMS says so), a new one opened only when those are all
 * busy. With fewer HTTP/2 connections than loops, the loops past them send their HTTP/2 calls through the client of a
 * loop that has one (each HTTP/1.1 client has at least one connection).
 *
 * <p>An HTTP/2 connection is given {@link ChannelConfig#MAX_CONNECT_TIMEOUT} to connect, whichever channel's call
 * opens it: it is shared by every call to its provider, so no one channel's shorter connect timeout is its bound (that
 * call gives up its own wait at its bound, {@link UpstreamHttpComponent#poolWaitMs}, and the connection, once open,
 * carries the calls queued for it). Its TLS handshake may then take as long as those calls wait for it
 * ({@code http2StreamWaitMs}, at least as long): a burst opens every connection it may at once, and on a busy machine
 * their handshakes took more than 10 s, each failed one failing its call as if the provider were down.
 *
 * <p>HTTP/2 is offered over TLS only (ALPN: h2, then http/1.1; the provider picks): over plain http:// the client
 * would have to send an h2c upgrade request, which most providers behind a proxy do not answer, and a provider
 * reached over plain HTTP is a local one, where a connection costs little.
 */
public final class UpstreamClients {

    /** How a provider is reached: the key of one client. */
    record Transport(boolean tls, Http2 http2, Path caFile) {

        boolean offersHttp2() {
            return tls && http2 == Http2.AUTO;
        }
    }

    /** Calls one HTTP/2 connection carries at once at most. */
    static final int HTTP2_STREAMS_PER_CONNECTION = 100;

    private final Vertx vertx;
    private final WebClientOptions base;
    private final int http2Connections;
    private final long http2StreamWaitMs;
    /** HTTP/1.1 connections per provider at most, across all the loops' clients ({@code http1Connections}). */
    private final int http1Connections;
    /** The event loops that may have clients of their own: as many as read the HTTP server's connections. */
    private final int loops;
    /**
     * The clients of each event loop that has sent a call, at most {@link #loops}: Vert.x's pool hands out its most
     * recently used free connection whatever its event loop (an HTTP/1.1 one; an HTTP/2 one by its free streams), so
     * with one client a call read on one loop was sent and answered on another; a loop's own client opens its
     * connections on that loop (docs/decisions.md, "An event loop per core reads the HTTP server's connections, each
     * with its own provider client").
     */
    private final List<Loop> admitted = new CopyOnWriteArrayList<>();
    private final Map<EventLoop, Loop> byLoop = new ConcurrentHashMap<>();
    private final AtomicInteger turn = new AtomicInteger();

    /**
     * One transport's client: {@code web} for calls answered whole, {@code http} for streams (read as they arrive);
     * the web client wraps the HTTP client, so both share its connections.
     */
    record Client(HttpClient http, WebClient web) {
    }

    /**
     * One event loop's clients, one per transport, each with {@code http1Connections} or {@code http2Connections} of a
     * provider's; calls to them go out from {@code context}, so that their connections open, and their answers are
     * read, on that loop. {@code index}: the loop's place among the admitted ones.
     */
    private record Loop(int index, ContextInternal context, int http1Connections, int http2Connections,
                        Map<Transport, Client> clients) {

        int connections(Transport transport) {
            return transport.offersHttp2() ? http2Connections : http1Connections;
        }
    }

    /**
     * @param base              the options every client starts from (pool size of HTTP/1.1 connections, divided among
     *                          the event loops' clients; compression, user agent); null: Vert.x's defaults
     * @param http2Connections  HTTP/2 connections per provider at most
     * @param http2StreamWaitMs how long calls may wait for a stream of an HTTP/2 connection, its handshake included
     */
    UpstreamClients(Vertx vertx, WebClientOptions base, int http2Connections, long http2StreamWaitMs) {
        this(vertx, base, List.of(), http2Connections, http2StreamWaitMs);
    }

    /**
     * @param serving the event loops that read the HTTP server's connections ({@link ServerEventLoops#of}), each given
     *                its clients from the start; none known: the first loops to send a call, as many as
     *                {@link ServerEventLoops#loops}
     */
    UpstreamClients(Vertx vertx, WebClientOptions base, List<EventLoop> serving, int http2Connections,
                    long http2StreamWaitMs) {
        this.vertx = vertx;
        this.base = base == null ? new WebClientOptions() : new WebClientOptions(base);
        if (http2Connections < 1) {
            throw new IllegalArgumentException("keypool.http2-connections-per-provider must be at least 1, not "
                    + http2Connections);
        }
        this.http2Connections = http2Connections;
        this.http2StreamWaitMs = http2StreamWaitMs;
        this.http1Connections = this.base.getMaxPoolSize();
        this.loops = serving.isEmpty() ? ServerEventLoops.loops((VertxInternal) vertx) : serving.size();
        // a call of no request (a probe at start) would otherwise give a loop the server does not read on its share
        serving.forEach(this::admit);
    }

    /**
     * Where a call of this transport goes out from: the context of the loop whose client carries it (of
     * {@code requestLoop}, the loop that read the call's request, wherever the call is sent from: a retry, a call after
     * a fault's delay; else of the calling thread's loop; else, a call of no request from no loop (a probe, a batch
     * line), the loops' in turn), or over HTTP/2 of the loop that lends it its client when it has no connection of its
     * own.
     */
    ContextInternal sendingContext(Transport transport, Context requestLoop) {
        return carrier(loop(requestLoop != null ? requestLoop : Vertx.currentContext()), transport).context();
    }

    /**
     * The client of this transport for a call sent from the calling thread, made at its first call: that of the current
     * context's event loop ({@link #sendingContext}).
     */
    Client client(Transport transport) {
        Loop loop = carrier(loop(Vertx.currentContext()), transport);
        return loop.clients().computeIfAbsent(transport, t -> create(t, loop));
    }

    /**
     * The loop whose client carries the loop's calls of this transport: itself, or over HTTP/2 when its share of
     * {@code http2Connections} is none, one of the first loops, whose shares are one each. Those loops are admitted
     * already: a loop has no share only when more loops came before it than there are connections.
     */
    private Loop carrier(Loop loop, Transport transport) {
        return loop.connections(transport) > 0 ? loop : admitted.get(loop.index() % http2Connections);
    }

    /**
     * The clients of the context's event loop: of a loop the server reads on, or, where those are not known, of a loop
     * at its first call while fewer than {@link #loops} have any; each with its share of {@code http1Connections}, so
     * that their sum holds the bound. Any other loop and a call from no loop take the loops' clients in turn.
     */
    private Loop loop(Context context) {
        EventLoop own = context != null && context.isEventLoopContext() ? ((ContextInternal) context).nettyEventLoop() : null;
        Loop known = own == null ? null : byLoop.get(own);
        if (known != null) {
            return known;
        }
        synchronized (admitted) {
            known = own == null ? null : byLoop.get(own);
            if (known != null) {
                return known;
            }
            if (admitted.size() < loops && (own != null || admitted.isEmpty())) {
                return admit(own != null ? own : ((VertxInternal) vertx).getEventLoopGroup().next());
            }
        }
        return admitted.get(Math.floorMod(turn.getAndIncrement(), admitted.size()));
    }

    /** Gives the loop its clients (made at their first call) and its share of the connections. */
    private Loop admit(EventLoop loop) {
        synchronized (admitted) {
            int index = admitted.size();
            Loop made = new Loop(index, ((VertxInternal) vertx).createEventLoopContext(loop, null,
                    Thread.currentThread().getContextClassLoader()), Math.max(1, share(http1Connections, index)),
                    share(http2Connections, index), new ConcurrentHashMap<>());
            admitted.add(made);
            byLoop.put(loop, made);
            return made;
        }
    }

    /** The share of {@code bound} connections of the loop admitted {@code index}th: an even one, the first loops one more. */
    private int share(int bound, int index) {
        return bound / loops + (index < bound % loops ? 1 : 0);
    }

    /** A client of the loop's: its shares of the HTTP/1.1 connections (also where ALPN picks http/1.1) and HTTP/2 ones. */
    private Client create(Transport transport, Loop loop) {
        WebClientOptions options = new WebClientOptions(base).setSsl(transport.tls()).setMaxPoolSize(loop.http1Connections());
        if (transport.offersHttp2()) {
            options.setProtocolVersion(HttpVersion.HTTP_2)
                    .setUseAlpn(true)
                    .setAlpnVersions(List.of(HttpVersion.HTTP_2, HttpVersion.HTTP_1_1))
                    .setHttp2MaxPoolSize(loop.http2Connections())
                    // at most 100 calls per connection (fewer if the provider allows fewer). Left to the provider's
                    // SETTINGS (-1), a burst of 2,000 calls on a saturated machine found 15 connections carrying 1,500
                    // while 99 more stood open idle, and 500 calls failed waiting; with 100 known up front, 1,899 went
                    // out over 128 connections (a scratch run against FakeUpstream.overTls, load average 26 on 2 cores)
                    .setHttp2MultiplexingLimit(HTTP2_STREAMS_PER_CONNECTION)
                    .setConnectTimeout((int) ChannelConfig.MAX_CONNECT_TIMEOUT.toMillis())
                    .setSslHandshakeTimeout(Math.max(ChannelConfig.MAX_CONNECT_TIMEOUT.toMillis(), http2StreamWaitMs))
                    .setSslHandshakeTimeoutUnit(TimeUnit.MILLISECONDS);
        }
        if (transport.caFile() != null) {
            try {
                options.setTrustOptions(TrustOptions.wrap(CaCertificates.withDefaults(transport.caFile())));
            } catch (Exception unreadable) {
                // the file was read when the configuration was loaded; changed since
                throw new IllegalStateException("caFile " + transport.caFile() + " cannot be read: " + unreadable.getMessage(),
                        unreadable);
            }
        }
        HttpClient http = vertx.createHttpClient(options);
        WebClient web = WebClient.wrap(http, options);
        ((WebClientInternal) web).addInterceptor(UpstreamHttpComponent::intercept);
        ((WebClientInternal) web).addInterceptor(ProviderCallReset::afterAnswerTooLarge);
        return new Client(http, web);
    }

    void close() {
        admitted.forEach(loop -> loop.clients().values().forEach(client -> client.http().close()));
        admitted.clear();
        byLoop.clear();
    }
}
