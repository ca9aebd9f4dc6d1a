package dev.keypool.camel;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

import dev.keypool.camel.http.GatewayHttpEngine;
import dev.keypool.camel.http.Http2OverTls;
import dev.keypool.camel.http.RememberedHeaderFilter;
import dev.keypool.camel.http.RequestEdge;
import dev.keypool.camel.http.RequestThreads;
import dev.keypool.camel.http.ServerEventLoops;
import dev.keypool.camel.http.UnmatchedRequests;
import dev.keypool.camel.pipeline.GatewayResponses;
import dev.keypool.camel.pipeline.MetricsGuard;
import dev.keypool.camel.routes.ReloadGate;
import dev.keypool.camel.routes.StartGate;
import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import org.apache.camel.CamelContext;
import org.apache.camel.Ordered;
import org.apache.camel.StartupListener;
import org.apache.camel.component.platform.http.PlatformHttpComponent;
import org.apache.camel.component.platform.http.PlatformHttpConstants;
import org.apache.camel.component.platform.http.spi.PlatformHttpEngine;
import org.apache.camel.component.platform.http.vertx.VertxPlatformHttpRouter;
import org.apache.camel.http.base.HttpHeaderFilterStrategy;

/** The HTTP server: its Vert.x and workers, and the handlers of its edge, when KeyPool answers HTTP itself. */
final class ServerBeans {

    private ServerBeans() {
    }

    /**
     * One Vert.x for the HTTP server (platform-http) and the provider calls (vertx-http): both take the registry's, so
     * the calls share the server's epoll event loops; closed once the context has stopped: platform-http closes its
     * server when the context stops its services, and a Vert.x closed before that (a service stopped earlier) had
     * its event loops gone when the server's close handed its outcome to one, a stack trace at every stop.
     *
     * @return the requests the server's workers can be working on at once ({@link RequestThreads}): a bound of the
     *         in-flight limit
     */
    static int startVertx(CamelContext context) {
        int workers = Wiring.intSetting(context, "keypool.worker-threads");
        int spare = Wiring.intSetting(context, "keypool.spare-worker-threads");
        Vertx vertx = Vertx.vertx(vertxOptions(workers + spare));
        context.getRegistry().bind("vertx", vertx);
        Wiring.closeAfterStop(context, () -> vertx.close().toCompletionStage().toCompletableFuture().get(30, TimeUnit.SECONDS));
        return RequestThreads.requestsHeld(workers);
    }

    /**
     * The edge's handlers, HTTP/2 on a TLS listener, and the metrics' token when one is set.
     *
     * @param tokenizerLoading whether the tokenizer loads now: an entry's route then starts on a request thread
     */
    static void installEdge(CamelContext context, GatewayResponses gatewayResponses, boolean sharedState,
                            BooleanSupplier tokenizerLoading) {
        Http2OverTls.install(context);
        boolean reload = Wiring.flag(context, "camel.main.routes-reload-enabled");
        // with Redis, tenant admission, key selection and the response cache wait for its answers before the call
        context.getRegistry().bind(PlatformHttpConstants.PLATFORM_HTTP_ENGINE_NAME, PlatformHttpEngine.class,
                new GatewayHttpEngine(reload, !sharedState, tokenizerLoading));
        // platform-http's own filter (each endpoint's default), its answer per header name remembered
        context.getComponent("platform-http", PlatformHttpComponent.class)
                .setHeaderFilterStrategy(new RememberedHeaderFilter(new HttpHeaderFilterStrategy()));
        installRouterHandlers(context, gatewayResponses, reload, RequestEdge.fromSettings(context, gatewayResponses));
        // after the other hooks on the servers' options (above): it copies them
        ServerEventLoops.install(context);
        Wiring.optionalSetting(context, "keypool.metrics.token")
                .ifPresent(token -> MetricsGuard.protect(context, token, gatewayResponses));
    }

    /**
     * Once the HTTP servers are up and before any route consumes: bodies bounded before they are read
     * ({@link RequestEdge}) and OpenAI-shaped 404/405 for requests no route takes ({@link UnmatchedRequests}). The
     * servers listen before the routes start, so a request may come as soon as its route does: installed any later,
     * the first requests would be read whole, whatever their size. Until every route has started, requests are held
     * back ({@link StartGate}). With live route reload on, once the routes are known, requests held while their route
     * is replaced ({@link ReloadGate}).
     */
    private static void installRouterHandlers(CamelContext context, GatewayResponses gatewayResponses, boolean reload,
            RequestEdge edge) {
        // ordered last, after Camel's own listener that starts the context's eager services, the HTTP servers among them
        final class RouterHandlers implements StartupListener, Ordered {
            private final List<io.vertx.ext.web.Route> startGates = new ArrayList<>();

            @Override
            public int getOrder() {
                return Ordered.LOWEST;
            }

            @Override
            public void onCamelContextStarting(CamelContext starting, boolean alreadyStarted) {
                // the servers listen now; the routes' consumers have not started
                // one router per HTTP server (the API's, and the management one when it has its own port)
                for (VertxPlatformHttpRouter found : starting.getRegistry().findByType(VertxPlatformHttpRouter.class)) {
                    VertxPlatformHttpRouter router = RequestEdge.leavingReadBodies(starting, found);
                    UnmatchedRequests.install(router, gatewayResponses);
                    edge.install(router);
                    startGates.add(StartGate.install(starting, router));
                }
            }

            @Override
            public void onCamelContextStarted(CamelContext started, boolean alreadyStarted) {
                // the routes start later: the handlers are installed before them, or after them for reload
            }

            @Override
            public void onCamelContextFullyStarted(CamelContext started, boolean alreadyStarted) {
                startGates.forEach(io.vertx.ext.web.Route::remove);
                startGates.clear();
                if (reload) {
                    for (VertxPlatformHttpRouter router : started.getRegistry().findByType(VertxPlatformHttpRouter.class)) {
                        ReloadGate.install(started, router);
                    }
                }
            }
        }
        Wiring.addStartupListener(context, new RouterHandlers());
    }

    /**
     * The request threads: a request holds one until its provider call goes out ({@link GatewayHttpEngine}), a form or
     * upload until its route is done (platform-http's own consumer), and LLM calls take seconds: the pool must be as
     * large as the concurrency we promise (docs/architecture.md, "Concurrency model").
     */
    private static VertxOptions vertxOptions(int workers) {
        return new VertxOptions()
                .setWorkerPoolSize(workers)
                // epoll where netty-transport-native-epoll loads (Linux x86-64), NIO elsewhere
                .setPreferNativeTransport(true)
                // an LLM call may legitimately hold its worker for minutes: no blocked-thread warnings for that
                .setMaxWorkerExecuteTime(30)
                .setMaxWorkerExecuteTimeUnit(TimeUnit.MINUTES);
    }
}
