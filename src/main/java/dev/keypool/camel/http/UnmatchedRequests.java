package dev.keypool.camel.http;

import java.util.Set;
import java.util.TreeSet;

import dev.keypool.camel.pipeline.GatewayResponses;
import dev.keypool.config.Api;
import dev.keypool.gateway.GatewayError;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpMethod;
import io.vertx.ext.web.Route;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Answers what no route answers, shaped as every other error (Anthropic's under /v1/messages, else OpenAI's): 404
 * for a path nobody serves, 405 with {@code Allow} for a path served under other methods, and the failures Vert.x
 * raises itself before a route runs (413 for a body over {@code camel.server.max-body-size}, 400 for a body it cannot
 * read, 500, logged by the failure's class). Without it Vert.x answers those with an HTML page (404) or an empty body.
 * It is the last route of platform-http's router, so it sees only what every route before it declined, whenever that
 * route was added (routes reloaded later included).
 */
public final class UnmatchedRequests {

    private static final Logger LOG = LoggerFactory.getLogger(UnmatchedRequests.class);

    private final Router router;
    private final GatewayResponses responses;
    private Route self;

    private UnmatchedRequests(Router router, GatewayResponses responses) {
        this.router = router;
        this.responses = responses;
    }

    public static void install(Router router, GatewayResponses responses) {
        UnmatchedRequests unmatched = new UnmatchedRequests(router, responses);
        unmatched.self = router.route().last().handler(unmatched::answer).failureHandler(unmatched::failed);
    }

    /** A request that failed inside Vert.x or platform-http, before or outside a route's own error handling. */
    private void failed(RoutingContext context) {
        if (context.response().headWritten()) {
            context.response().close();   // an answer is under way: nothing else can be said on this connection
            return;
        }
        int status = context.statusCode() >= 400 ? context.statusCode() : 500;
        if (status >= 500) {
            // the gateway's own fault, answered outside every route: the log is all an operator has of it (the class
            // name only, as for a failure inside a route: a third party's message is not ours to vouch for)
            Throwable failure = context.failure();
            LOG.warn("Request failed before or outside its route: {} {}: {}", context.request().method(),
                    context.normalizedPath(), failure == null ? "status " + status : failure.getClass().getName());
        }
        GatewayError error = switch (status) {
            case 413 -> new GatewayError(413, "invalid_request_error", "request_too_large",
                    "Request body is over the size limit of this gateway", null);
            case 400 -> GatewayError.badRequest("invalid_request", "The request could not be read");
            default -> new GatewayError(status, status < 500 ? "invalid_request_error" : "server_error",
                    status < 500 ? "invalid_request" : "internal_error",
                    status < 500 ? "The request was refused (" + status + ")" : "Internal gateway error", null);
        };
        context.response().setStatusCode(error.status()).putHeader("Content-Type", "application/json")
                .end(Buffer.buffer(responses.errorBody(error, apiOf(context.normalizedPath()))));
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
        response.end(Buffer.buffer(responses.errorBody(error, apiOf(path))));
    }

    /** A request under /v1/messages is answered as Anthropic would; any other as OpenAI would. */
    static Api apiOf(String path) {
        return path.equals("/v1/messages") || path.startsWith("/v1/messages/") ? Api.MESSAGES : null;
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
