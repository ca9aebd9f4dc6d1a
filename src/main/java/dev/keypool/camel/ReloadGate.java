package dev.keypool.camel;

import java.util.Map;
import java.util.stream.Collectors;

import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import org.apache.camel.CamelContext;
import org.apache.camel.Route;
import org.apache.camel.StatefulService;
import org.apache.camel.component.platform.http.PlatformHttpEndpoint;

/**
 * Holds back a request whose HTTP entry route is being replaced by a live route reload
 * ({@code camel.main.routes-reload-enabled}), until the new route takes it. Camel reloads an edited file by stopping
 * each of its routes (the platform-http consumer is first suspended, answering 503 with no body, while the requests in
 * it finish), removing them, then adding and starting the new ones; a request that came in between would get that
 * 503, or a 404 once the route is off the router. Here it waits instead, routed again every {@value #REROUTE_MS} ms,
 * for up to {@value #WAIT_MS} ms; after that it goes on to whatever answers.
 *
 * <p>The first route of platform-http's router, installed only when reload is on: the default request path is
 * untouched. Its check is one map lookup and the consumer's state. A consumer suspended after that check, while the
 * request was on its way to it, holds the request back the same way ({@link ReloadSafeHttpEngine}).
 */
final class ReloadGate {

    static final long WAIT_MS = 5000;
    static final long REROUTE_MS = 10;
    private static final String DEADLINE = "kpReloadDeadline";

    private final CamelContext camel;
    /** The path of each platform-http route at startup, and its route id (the same after a reload). */
    private final Map<String, String> routeIdByPath;

    private ReloadGate(CamelContext camel, Map<String, String> routeIdByPath) {
        this.camel = camel;
        this.routeIdByPath = routeIdByPath;
    }

    static void install(CamelContext camel, Router router) {
        Map<String, String> routes = camel.getRoutes().stream()
                .filter(route -> route.getEndpoint() instanceof PlatformHttpEndpoint)
                .collect(Collectors.toUnmodifiableMap(route -> ((PlatformHttpEndpoint) route.getEndpoint()).getPath(),
                        Route::getRouteId, (a, b) -> a));
        ReloadGate gate = new ReloadGate(camel, routes);
        router.route().order(Integer.MIN_VALUE).handler(gate::handle);
    }

    private void handle(RoutingContext context) {
        String routeId = routeIdByPath.get(context.normalizedPath());
        if (routeId == null || taking(routeId) || !holdBack(context)) {
            context.next();
        }
    }

    /**
     * Holds the request back and routes it again in {@value #REROUTE_MS} ms; false once it has been held
     * {@value #WAIT_MS} ms, when it goes on to whatever answers.
     */
    static boolean holdBack(RoutingContext context) {
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
