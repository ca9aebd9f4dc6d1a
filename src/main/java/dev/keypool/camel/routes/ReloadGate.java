package dev.keypool.camel.routes;

import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;

import dev.keypool.camel.http.GatewayHttpEngine;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import org.apache.camel.CamelContext;
import org.apache.camel.Route;
import org.apache.camel.StatefulService;
import org.apache.camel.component.platform.http.PlatformHttpEndpoint;
import org.apache.camel.spi.ResourceReload;
import org.apache.camel.support.RouteWatcherReloadStrategy;

/**
 * Holds back a request whose HTTP entry route is being replaced by a live route reload
 * ({@code camel.main.routes-reload-enabled}), until the new route takes it. Camel reloads an edited file by stopping
 * each of its routes (the platform-http consumer is first suspended, answering 503 with no body, while the requests in
 * it finish), removing them, then adding and starting the new ones; a request that came in between would get that
 * 503, or a 404 once the route is off the router. Here it waits instead, routed again every {@value #REROUTE_MS} ms,
 * for up to {@value #WAIT_MS} ms; after that it goes on to whatever answers.
 *
 * <p>While any file is being reloaded, every request to a route is held back the same way, its route's file or
 * another: an entry made from a template (keypool-entry) is not replaced with the file of the routes it hands over to,
 * and Camel stops a direct: route only once no exchange is in it, which a running entry would never let happen.
 *
 * <p>The first route of platform-http's router, installed only when reload is on: the default request path is
 * untouched. Its check is one map lookup, a counter and the consumer's state. A consumer suspended after that check,
 * while the request was on its way to it, holds the request back the same way ({@link GatewayHttpEngine}).
 */
public final class ReloadGate {

    static final long WAIT_MS = 5000;
    static final long REROUTE_MS = 10;
    private static final String DEADLINE = "kpReloadDeadline";

    private final CamelContext camel;
    /** The path of each platform-http route at startup, and its route id (the same after a reload). */
    private final Map<String, String> routeIdByPath;
    /** Files being reloaded now. */
    private final AtomicInteger reloading;

    private ReloadGate(CamelContext camel, Map<String, String> routeIdByPath, AtomicInteger reloading) {
        this.camel = camel;
        this.routeIdByPath = routeIdByPath;
        this.reloading = reloading;
    }

    public static void install(CamelContext camel, Router router) {
        Map<String, String> routes = camel.getRoutes().stream()
                .filter(route -> route.getEndpoint() instanceof PlatformHttpEndpoint)
                .collect(Collectors.toUnmodifiableMap(route -> ((PlatformHttpEndpoint) route.getEndpoint()).getPath(),
                        Route::getRouteId, (a, b) -> a));
        ReloadGate gate = new ReloadGate(camel, routes, reloading(camel));
        router.route().order(Integer.MIN_VALUE).handler(gate::handle);
    }

    /** The count of files Camel's route reload is applying now, one per CamelContext however many routers it has. */
    private static AtomicInteger reloading(CamelContext camel) {
        Reloading known = camel.getCamelContextExtension().getContextPlugin(Reloading.class);
        if (known != null) {
            return known.files();
        }
        Reloading reloading = new Reloading(new AtomicInteger());
        camel.getCamelContextExtension().addContextPlugin(Reloading.class, reloading);
        RouteWatcherReloadStrategy watcher = camel.hasService(RouteWatcherReloadStrategy.class);
        ResourceReload reload = watcher == null ? null : watcher.getResourceReload();
        if (reload != null) {
            watcher.setResourceReload((name, resource) -> {
                reloading.files().incrementAndGet();
                try {
                    reload.onReload(name, resource);
                } finally {
                    reloading.files().decrementAndGet();
                }
            });
        }
        return reloading.files();
    }

    private record Reloading(AtomicInteger files) {
    }

    private void handle(RoutingContext context) {
        String routeId = routeIdByPath.get(context.normalizedPath());
        if (routeId == null || reloading.get() == 0 && taking(routeId) || !holdBack(context)) {
            context.next();
        }
    }

    /**
     * Holds the request back and routes it again in {@value #REROUTE_MS} ms; false once it has been held
     * {@value #WAIT_MS} ms, when it goes on to whatever answers.
     */
    public static boolean holdBack(RoutingContext context) {
        long now = System.currentTimeMillis();
        Long deadline = context.get(DEADLINE);
        if (deadline == null) {
            deadline = now + WAIT_MS;
            context.put(DEADLINE, deadline);
        }
        if (now >= deadline) {
            return false;
        }
        // the body stays unread until the route that takes the request reads it
        context.request().pause();
        context.vertx().setTimer(REROUTE_MS, id -> context.reroute(context.request().method(), context.request().uri()));
        return true;
    }

    /** Whether the route is there and its consumer started (not suspended, stopping or stopped). */
    private boolean taking(String routeId) {
        Route route = camel.getRoute(routeId);
        return route != null && route.getConsumer() instanceof StatefulService consumer && consumer.isStarted();
    }
}
