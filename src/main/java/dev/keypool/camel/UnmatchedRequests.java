package dev.keypool.camel;

import java.util.Set;
import java.util.TreeSet;

import dev.keypool.config.Api;
import dev.keypool.gateway.GatewayError;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpMethod;
import io.vertx.ext.web.Route;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;

/**
 * Answers the requests no route takes, shaped as every other error (Anthropic's under /v1/messages, else OpenAI's): 404 for a path nobody serves, 405
 * with {@code Allow} for a path served under other methods. Without it Vert.x answers those with an HTML page
 * (404) or an empty body (405). It is the last route of platform-http's router, so it sees only what every
 * route before it declined, whenever that route was added (routes reloaded later included).
 */
final class UnmatchedRequests {

    private final Router router;
    private final GatewayResponses responses;
    private Route self;

    private UnmatchedRequests(Router router, GatewayResponses responses) {
        this.router = router;
        this.responses = responses;
    }

    static void install(Router router, GatewayResponses responses) {
        UnmatchedRequests unmatched = new UnmatchedRequests(router, responses);
        unmatched.self = router.route().last().handler(unmatched::answer);
    }

    private void answer(RoutingContext context) {
        String path = context.normalizedPath();
        HttpMethod method = context.request().method();
        Set<String> allowed = allowedMethods(path);
        GatewayError error = allowed.isEmpty()
                ? new GatewayError(404, "invalid_request_error", "unknown_url",
                        "Invalid URL (" + method + " " + path + ")", null)
                : new GatewayError(405, "invalid_request_error", "method_not_allowed",
                        "Method " + method + " is not allowed for " + path + " (use " + String.join(", ", allowed) + ")", null);
        var response = context.response().setStatusCode(error.status()).putHeader("Content-Type", "application/json");
        if (!allowed.isEmpty()) {
            response.putHeader("Allow", String.join(", ", allowed));
        }
        // a wrong method or path under /v1/messages is answered as Anthropic would
        Api api = path.equals("/v1/messages") || path.startsWith("/v1/messages/") ? Api.MESSAGES : null;
        response.end(Buffer.buffer(responses.errorBody(error, api)));
    }

    /** The methods the other routes serve {@code path} under; empty when none serves it. */
    private Set<String> allowedMethods(String path) {
        Set<String> methods = new TreeSet<>();
        for (Route route : router.getRoutes()) {
            if (route != self && route.getPath() != null && !route.isRegexPath() && serves(route, path)) {
                if (route.methods() == null || route.methods().isEmpty()) {
                    return Set.of();   // a route for every method declined it: nothing to allow instead
                }
                route.methods().forEach(m -> methods.add(m.name()));
            }
        }
        return methods;
    }

    private static boolean serves(Route route, String path) {
        String routePath = route.getPath();
        return route.isExactPath() ? routePath.equals(path) : path.startsWith(routePath);
    }
}
