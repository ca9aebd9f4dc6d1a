package dev.keypool.camel.http;

import java.nio.file.Path;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;

import dev.keypool.camel.pipeline.GatewayResponses;
import dev.keypool.camel.pipeline.TenantGate;
import dev.keypool.camel.routes.ReloadGate;
import dev.keypool.gateway.BodyBudget;
import dev.keypool.gateway.BodyLimits;
import dev.keypool.gateway.GatewayError;
import dev.keypool.gateway.MultipartForm;
import dev.keypool.gateway.PassthroughPaths;
import io.netty.handler.codec.http2.Http2Error;
import io.vertx.core.Handler;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.HttpServerResponse;
import io.vertx.core.http.HttpVersion;
import io.vertx.ext.web.Route;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import io.vertx.ext.web.handler.BodyHandler;
import org.apache.camel.CamelContext;
import org.apache.camel.component.platform.http.vertx.VertxPlatformHttpRouter;
import org.apache.camel.spi.PropertiesComponent;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The first look at a request with a body, on the event loop, before platform-http reads it: what Envoy and nginx
 * do at their edge. From the headers alone: 401 when tenants are configured and it carries no tenant's token, 413 when
 * its Content-Length is over its path's limit ({@link BodyLimits}), 503 {@code overloaded} when its bytes would pass
 * the budget of bodies held at once in the heap ({@link BodyBudget}), or for an upload spooled to disk the budget of
 * uploads on disk, 400 for an upload whose multipart boundary is longer than
 * RFC 2046 allows. Then its body is read under the path's limit (a chunked one
 * counted as it arrives and cut there, by Vert.x's own body handler) or, for an upload, written to disk as it arrives
 * ({@link SpooledUploads}); a body not all there within {@code keypool.request-read-timeout-ms} gets 408 and its
 * connection closed (an HTTP/2 body that declares its length is read by platform-http, and held to that length by
 * Netty; one that declares none is read here, and only its stream is reset). The time a request then waits on its
 * provider, or a stream takes to relay, is not limited here.
 * A request without a body goes on untouched.
 */
public final class RequestEdge {

    /**
     * How long the rest of a refused body is read and dropped before the connection is closed, so that the client
     * reads its answer instead of a reset (nginx's lingering close).
     */
    private static final long LINGER_MS = 5_000;
    private static final Logger LOG = LoggerFactory.getLogger(RequestEdge.class);
    private static final String BODY_PENDING = "kpBodyPending";
    private static final Set<HttpMethod> BODY_METHODS = Set.of(HttpMethod.POST, HttpMethod.PUT, HttpMethod.PATCH);
    /**
     * The order of the first route of the API's paths ({@link #apiFirst}), the next ones following it: after
     * {@link ReloadGate}'s and this edge's own routes, before every route that takes Vert.x's default order (0, 1, ...).
     */
    static final int FIRST_API_ROUTE = Integer.MIN_VALUE + 16;
    private static final String CHAT_COMPLETIONS = "/v1/chat/completions";

    private final Vertx vertx;
    private final BodyLimits limits;
    private final BodyBudget budget;
    private final BodyBudget onDisk;
    private final TenantGate tenants;
    private final SpooledUploads uploads;
    private final long readTimeoutMs;
    private final GatewayResponses responses;
    /**
     * One Vert.x body handler per limit, as platform-http would use one for all: no file uploads, the bytes kept. Made
     * before the first request and never written after: every event loop that reads the server's connections
     * ({@link ServerEventLoops}) reads it at once. Filled by the requests themselves, the first requests of two loops
     * would write it together (a HashMap then throws ConcurrentModificationException: a 500 for that request).
     */
    private final Map<Long, BodyHandler> bodyHandlers;

    RequestEdge(Vertx vertx, BodyLimits limits, BodyBudget budget, BodyBudget onDisk, TenantGate tenants,
            SpooledUploads uploads, long readTimeoutMs, GatewayResponses responses) {
        this.vertx = vertx;
        this.limits = limits;
        this.budget = budget;
        this.onDisk = onDisk;
        this.tenants = tenants;
        this.uploads = uploads;
        this.readTimeoutMs = readTimeoutMs;
        this.responses = responses;
        this.bodyHandlers = limits.all().stream().collect(Collectors.toUnmodifiableMap(limit -> limit, RequestEdge::bodyHandler));
    }

    /** The edge as application.properties sets it; uploads go to {@code state.dir/uploads}. */
    public static RequestEdge fromSettings(CamelContext context, GatewayResponses responses) {
        PropertiesComponent properties = context.getPropertiesComponent();
        Set<String> uploadPaths = new HashSet<>(Set.of("/v1/files"));
        PassthroughPaths.parse(properties.resolveProperty("keypool.passthrough-paths").orElse("")).stream()
                .filter(p -> p.shape() == PassthroughPaths.Shape.MULTIPART).forEach(p -> uploadPaths.add("/v1/" + p.path()));
        BodyLimits limits = new BodyLimits(bytes(properties, "keypool.max-body-bytes"),
                bytes(properties, "keypool.max-audio-body-bytes"), bytes(properties, "batch.max-file-bytes"),
                // a host application's server (the keypool component with http-enabled) may set no cap of its own
                properties.resolveProperty("camel.server.max-body-size").filter(v -> !v.isBlank()).map(v -> Long.parseLong(v.trim()))
                        .orElse(Long.MAX_VALUE), uploadPaths);
        long budget = properties.resolveProperty("keypool.max-body-bytes-in-flight").filter(v -> !v.isBlank())
                .map(Long::parseLong).orElseGet(() -> BodyBudget.sizedFromHeap(Runtime.getRuntime().maxMemory()));
        LOG.info("At most {} bytes of request bodies held at once (keypool.max-body-bytes-in-flight), then 503 overloaded",
                budget);
        long onDisk = bytes(properties, "keypool.max-upload-bytes-on-disk");
        LOG.info("At most {} bytes of uploads on disk at once (keypool.max-upload-bytes-on-disk), then 503 overloaded", onDisk);
        RequestHeadTimeout.install(context, bytes(properties, "keypool.request-header-timeout-ms"));
        SpooledUploads uploads = new SpooledUploads(Path.of(setting(properties, "state.dir")).resolve("uploads"));
        context.getRegistry().bind(RequestBodies.SPOOLED_UPLOADS, uploads);
        return new RequestEdge(context.getRegistry().lookupByNameAndType("vertx", Vertx.class), limits,
                new BodyBudget(budget), new BodyBudget(onDisk),
                context.getRegistry().lookupByNameAndType("tenantGate", TenantGate.class), uploads,
                bytes(properties, "keypool.request-read-timeout-ms"), responses);
    }

    private static long bytes(PropertiesComponent properties, String name) {
        return Long.parseLong(setting(properties, name).trim());
    }

    private static String setting(PropertiesComponent properties, String name) {
        return properties.resolveProperty(name).orElseThrow(() -> new IllegalStateException(
                "Setting " + name + " is missing: start KeyPool with its application.properties"));
    }

    /**
     * platform-http's router as the consumers of its routes will look it up, with their body handler passing on a
     * request whose body this edge has read. Theirs resumes a request before reading it, which an HTTP/2 request
     * refuses once it has ended. Bound in place of {@code router} before the consumers start.
     *
     * <p>The routes of the API's own paths ({@link #apiFirst}) are tried before the others: Vert.x Web tries a
     * request's path against each route in turn, in the order the routes were added, and the admin, batch and fault
     * routes start before the API's. Chat completions, the most of the gateway's requests, come first of all: the
     * Batch API's {@code /v1/files} and {@code /v1/batches} start before it, and each route tried before the one that
     * matches costs a request its path compared (a substring and a string built each: 6.7 % of the bytes a chat
     * completion allocated went to Vert.x Web's path matching, async-profiler's alloc event, bench/builds.sh).
     */
    public static VertxPlatformHttpRouter leavingReadBodies(CamelContext camel, VertxPlatformHttpRouter router) {
        Handler<RoutingContext> platforms = router.bodyHandler();
        AtomicInteger apiRoutes = new AtomicInteger();
        VertxPlatformHttpRouter edged = new VertxPlatformHttpRouter(router.getServer(), router.vertx(), router,
                router.getName(), router.getServerType()) {
            @Override
            public Handler<RoutingContext> bodyHandler() {
                return context -> {
                    if (context.request().isEnded() && context.body().available()) {
                        context.next();
                    } else {
                        platforms.handle(context);
                    }
                };
            }

            @Override
            public Route route(String path) {
                Route route = super.route(path);
                if (CHAT_COMPLETIONS.equals(path)) {
                    return route.order(FIRST_API_ROUTE);
                }
                return apiFirst(path) ? route.order(FIRST_API_ROUTE + 1 + apiRoutes.getAndIncrement()) : route;
            }
        };
        camel.getRegistry().unbind(router.getName());
        camel.getRegistry().bind(router.getName(), VertxPlatformHttpRouter.class, edged);
        return edged;
    }

    /**
     * Whether a consumer's path is one of the API's own, without path parameters ({@code /v1/chat/completions},
     * {@code /v1/embeddings}, ...): the paths every LLM call takes. Each route tried before the one that matches costs
     * a request its path compared, and a route with parameters a regular expression run (with the routes in the
     * order they started, 16 % of the bytes a chat completion allocated went to that: async-profiler's alloc event,
     * bench/builds.sh at 64 connections).
     */
    static boolean apiFirst(String path) {
        return path.startsWith("/v1/") && path.indexOf(':') < 0 && path.indexOf('*') < 0 && path.indexOf('{') < 0;
    }

    /** Before every route of platform-http's router (after {@link ReloadGate}, which only holds requests back). */
    public void install(Router router) {
        router.route().order(Integer.MIN_VALUE + 1).handler(this::headers).handler(this::bodyRead);
    }

    private void headers(RoutingContext context) {
        HttpServerRequest request = context.request();
        long declared = contentLength(request);
        boolean http2 = request.version() == HttpVersion.HTTP_2;
        // HTTP/2 has no Transfer-Encoding: a body that declares no length comes in frames until the stream ends
        boolean unsized = http2 && declared < 0 && BODY_METHODS.contains(request.method());
        if (declared <= 0 && !request.headers().contains(HttpHeaders.TRANSFER_ENCODING) && !unsized) {
            context.next();   // no body: bodyRead passes it on
            return;
        }
        String path = context.normalizedPath();
        long limit = limits.limitFor(path);
        if (path.startsWith("/v1/") && tenants.tenants().enforced() && !tenants.authenticateAtEdge(context)) {
            refuse(context, GatewayError.invalidApiKey());
            return;
        }
        if (limits.isUpload(path) && !boundaryFits(context)) {
            return;
        }
        if (declared > limit) {
            refuse(context, GatewayError.tooLarge(declared, limit));
            return;
        }
        // an upload over HTTP/1.1 goes to disk as it arrives and from there to the provider: it holds no more of the heap
        // than its connection's buffers, so it is counted against the disk's budget instead of the heap's
        boolean spooled = limits.isUpload(path) && !http2;
        long reserved = declared > 0 ? declared : limit;
        BodyBudget held = spooled ? onDisk : budget;
        if (!held.tryTake(reserved)) {
            refuse(context, spooled ? GatewayError.uploadsOverloaded(onDisk.max())
                    : GatewayError.bodiesOverloaded(budget.max()));
            return;
        }
        if (http2 && !unsized) {
            // platform-http reads this one itself, under camel.server.max-body-size, and Netty holds an HTTP/2 body to
            // its declared length
            context.addEndHandler(v -> held.giveBack(reserved));
            context.next();
            return;
        }
        long timer = vertx.setTimer(readTimeoutMs, id -> {
            if (context.get(BODY_PENDING) != null && !context.response().ended()) {
                answer(context, GatewayError.bodyTimeout(readTimeoutMs)).onComplete(v -> hangUp(context));
            }
        });
        context.put(BODY_PENDING, timer);
        context.addEndHandler(v -> {
            vertx.cancelTimer(timer);
            held.giveBack(reserved);
            if (context.get(BODY_PENDING) != null && !request.isEnded()) {
                // answered before its body was all there (413 from the body handler, which drops the rest): a client
                // that goes on sending is cut off after a while
                vertx.setTimer(LINGER_MS, id -> {
                    if (!request.isEnded()) {
                        hangUp(context);
                    }
                });
            }
        });
        if (spooled) {
            uploads.spool(context, limit, e -> refuse(context, e));
        } else {
            bodyHandlers.get(limit).handle(context);
        }
    }

    /**
     * Vert.x's body handler for bodies of at most {@code limit} bytes, its buffer made to the body's Content-Length (up
     * to 64 KiB): by default Vert.x starts every body at 1 KiB, which a request holds for as long as it is in flight
     * (most bodies are far smaller: ~1 KB of heap per request in bench/run.sh streams, HOLD_STREAMS), and grows a
     * larger one by doubling.
     */
    static BodyHandler bodyHandler(long limit) {
        return BodyHandler.create(false).setBodyLimit(limit).setPreallocateBodyBuffer(true);
    }

    /** An upload's multipart boundary over RFC 2046's 70 characters: 400 before the body is read. */
    private boolean boundaryFits(RoutingContext context) {
        try {
            MultipartForm.boundary(context.request().getHeader(HttpHeaders.CONTENT_TYPE));
            return true;
        } catch (GatewayError e) {
            refuse(context, e);
            return false;
        }
    }

    /** The body is all there (or there was none): platform-http's route takes the request from here. */
    private void bodyRead(RoutingContext context) {
        Long timer = context.remove(BODY_PENDING);
        if (timer != null) {
            vertx.cancelTimer(timer);   // the time to wait on the provider, or to relay a stream, is not limited here
        }
        if (!context.response().ended()) {   // not answered 408 meanwhile
            context.next();
        }
    }

    /**
     * Answers {@code error} now; the rest of the body is read and dropped for a while, then the connection closed (over
     * HTTP/2 the stream alone reset, with NO_ERROR once the answer is out: RFC 9113 §8.1).
     * Reading on rather than resetting at once is what lets a client that only reads its answer once its body is sent
     * (JDK 17's HttpClient over HTTP/2 among them, which waits on flow control and ignores a reset that follows a
     * complete answer) see the answer at all.
     */
    private void refuse(RoutingContext context, GatewayError error) {
        context.remove(BODY_PENDING);
        HttpServerRequest request = context.request();
        boolean http2 = request.version() == HttpVersion.HTTP_2;
        if (context.response().ended()) {
            hangUp(context);
            return;
        }
        // once the body is all in, an HTTP/1.1 connection is closed (its answer said so); an HTTP/2 one carries others
        Runnable bodyIn = http2 ? () -> { } : () -> request.connection().close();
        answer(context, error).onComplete(v -> {
            if (request.isEnded()) {
                bodyIn.run();
                return;
            }
            long linger = vertx.setTimer(LINGER_MS, id -> {
                if (http2) {
                    context.response().reset(Http2Error.NO_ERROR.code());
                } else {
                    request.connection().close();
                }
            });
            request.handler(chunk -> { });
            request.exceptionHandler(e -> vertx.cancelTimer(linger));
            request.endHandler(end -> {
                vertx.cancelTimer(linger);
                bodyIn.run();
            });
            request.resume();
        });
    }

    /** Stops a client that goes on sending: its connection closed, or over HTTP/2 its stream alone reset. */
    private static void hangUp(RoutingContext context) {
        if (context.request().version() == HttpVersion.HTTP_2) {
            context.response().reset();
        } else {
            context.request().connection().close();
        }
    }

    private io.vertx.core.Future<Void> answer(RoutingContext context, GatewayError error) {
        HttpServerResponse response = context.response().setStatusCode(error.status())
                .putHeader(HttpHeaders.CONTENT_TYPE, "application/json");
        if (context.request().version() != HttpVersion.HTTP_2) {
            // HTTP/2 has no such header: its connection may carry other requests
            response.putHeader(HttpHeaders.CONNECTION, "close");
        }
        if (error.retryAfterSeconds() != null) {
            response.putHeader("Retry-After", String.valueOf(error.retryAfterSeconds()));
        }
        return response.end(Buffer.buffer(responses.errorBody(error, UnmatchedRequests.apiOf(context.normalizedPath()))));
    }

    /** The declared length; -1 when there is none, or one that is not a number (Vert.x then reads until the end). */
    private static long contentLength(HttpServerRequest request) {
        String value = request.getHeader(HttpHeaders.CONTENT_LENGTH);
        if (value == null) {
            return -1;
        }
        try {
            return Long.parseLong(value.trim());
        } catch (NumberFormatException e) {
            return -1;
        }
    }
}
