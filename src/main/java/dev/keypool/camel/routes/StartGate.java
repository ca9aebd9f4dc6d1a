package dev.keypool.camel.routes;

import io.vertx.ext.web.Route;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import org.apache.camel.CamelContext;

/**
 * Holds back a request that comes while the context is still starting its routes, until all of them have started.
 * platform-http's servers listen before the routes start, and a start answers its first request sooner when the
 * clients' retries find it listening; but a request an entry route takes then may reach a route or endpoint that has
 * not started: a provider endpoint made by {@code toD} in that moment was never started by Camel, its client stayed
 * unset, and every later call through it failed ({@code NullPointerException}, 503 to the client) for as long as the
 * gateway ran. Held here, the request is routed again every {@value ReloadGate#REROUTE_MS} ms, as a live reload holds
 * one ({@link ReloadGate#holdBack}), and goes on once the context has started (or after
 * {@value ReloadGate#WAIT_MS} ms, to whatever answers).
 *
 * <p>The first route of each platform-http router from the moment its server listens, removed once the context has
 * fully started: the request path afterwards is untouched.
 */
public final class StartGate {

    private StartGate() {
    }

    /** Installs the gate first on {@code router}; remove the returned route once {@code camel} has started. */
    public static Route install(CamelContext camel, Router router) {
        return router.route().order(Integer.MIN_VALUE).handler(context -> handle(camel, context));
    }

    private static void handle(CamelContext camel, RoutingContext context) {
        if (camel.isStarted() || !ReloadGate.holdBack(context)) {
            context.next();
        }
    }
}
