package dev.keypool.camel.http;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

import dev.keypool.config.CaCertificates;
import dev.keypool.config.ChannelConfig;
import dev.keypool.config.ProviderConfig.Http2;
import io.netty.channel.EventLoop;
import io.vertx.core.Context;
import io.vertx.core.Vertx;
import io.vertx.core.impl.ContextInternal;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpVersion;
import io.vertx.core.net.TrustOptions;
import io.vertx.ext.web.client.WebClient;
import io.vertx.ext.web.client.WebClientOptions;
import io.vertx.ext.web.client.impl.WebClientInternal;

/**
 * The Vert.x clients of the provider calls: one per way of reaching a provider (TLS or not, HTTP/2 offered or not,
 * the CA file trusted besides the JVM's), shared by every vertx-http endpoint that reaches providers that way, and over
 * HTTP/1.1 one such per event loop for the calls sent from it. Each client keeps one pool of connections per provider
 * (host and port): HTTP/1.1 connections up to
 * {@code http1Connections}, one call each; HTTP/2 connections up to {@code http2Connections}, each carrying up to 100
 * calls at once (fewer if its provider's SETTINGS_MAX_CONCURRENT_STREAMS says so), a new one opened only when those
 * are all busy.
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
    private final Map<Transport, Client> clients = new ConcurrentHashMap<>();
    /**
     * HTTP/1.1 clients of the calls sent from an event loop, one per transport and loop: Vert.x's pool hands out its
     * most recently used free connection whatever its event loop, so with one client a call read on one loop was sent
     * and answered on another; a loop's own client opens its connections on that loop (docs/decisions.md, "An event
     * loop per core reads the HTTP server's connections, each with its own provider client").
     */
    private final Map<EventLoop, Map<Transport, Client>> loopClients = new ConcurrentHashMap<>();

    /**
     * One transport's client: {@code web} for calls answered whole, {@code http} for streams (read as they arrive);
     * the web client wraps the HTTP client, so both share its connections.
     */
    record Client(HttpClient http, WebClient web) {
    }

    /**
     * @param base              the options every client starts from (pool size of HTTP/1.1 connections, compression,
     *                          user agent); null: Vert.x's defaults
     * @param http2Connections  HTTP/2 connections per provider at most
     * @param http2StreamWaitMs how long calls may wait for a stream of an HTTP/2 connection, its handshake included
     */
    UpstreamClients(Vertx vertx, WebClientOptions base, int http2Connections, long http2StreamWaitMs) {
        this.vertx = vertx;
        this.base = base == null ? new WebClientOptions() : new WebClientOptions(base);
        this.http2Connections = http2Connections;
        this.http2StreamWaitMs = http2StreamWaitMs;
    }

    /**
     * The client of this transport for a call sent from the calling thread, made at its first call: over HTTP/1.1 from
     * an event loop, that loop's own; otherwise (HTTP/2, whose calls share a few connections, or a call from another
     * thread) the transport's one.
     */
    Client client(Transport transport) {
        Context context = Vertx.currentContext();
        if (transport.offersHttp2() || context == null || !context.isEventLoopContext()) {
            return clients.computeIfAbsent(transport, this::create);
        }
        return loopClients.computeIfAbsent(((ContextInternal) context).nettyEventLoop(), loop -> new ConcurrentHashMap<>())
                .computeIfAbsent(transport, this::create);
    }

    private Client create(Transport transport) {
        WebClientOptions options = new WebClientOptions(base).setSsl(transport.tls());
        if (transport.offersHttp2()) {
            options.setProtocolVersion(HttpVersion.HTTP_2)
                    .setUseAlpn(true)
                    .setAlpnVersions(List.of(HttpVersion.HTTP_2, HttpVersion.HTTP_1_1))
                    .setHttp2MaxPoolSize(http2Connections)
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
        clients.values().forEach(client -> client.http().close());
        clients.clear();
        loopClients.values().forEach(loop -> loop.values().forEach(client -> client.http().close()));
        loopClients.clear();
    }
}
