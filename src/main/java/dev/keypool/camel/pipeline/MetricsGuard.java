package dev.keypool.camel.pipeline;

import dev.keypool.auth.Bearer;
import dev.keypool.auth.Sha256;
import dev.keypool.gateway.GatewayError;
import io.vertx.core.buffer.Buffer;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import org.apache.camel.CamelContext;
import org.apache.camel.StartupListener;
import org.apache.camel.component.platform.http.vertx.VertxPlatformHttpRouter;

/**
 * {@code keypool.metrics.token}: /observe/metrics answers only a scraper that sends {@code Authorization: Bearer
 * <token>} (Prometheus: {@code authorization: {credentials: <token>}}); the health paths stay open for load
 * balancers. Camel's own management authentication does not serve here: it applies only when the management server
 * has a port of its own (KeyPool serves /observe on the API's port), and it takes Basic users from a properties file
 * or JWTs, not a token. Only the token's SHA-256 is kept, compared in constant time.
 */
public final class MetricsGuard {

    static final String PATH = "/observe/metrics";

    private final byte[] tokenHash;
    private final byte[] refusal;

    private MetricsGuard(String token, GatewayResponses responses) {
        this.tokenHash = Sha256.of(token);
        this.refusal = responses.errorBody(new GatewayError(401, "authentication_error", "invalid_metrics_token",
                "Missing or wrong metrics token (Authorization: Bearer <keypool.metrics.token>)", null));
    }

    /** Once the HTTP servers are up, the guard goes in front of the metrics route of each (it is there by then). */
    public static void protect(CamelContext context, String token, GatewayResponses responses) {
        MetricsGuard guard = new MetricsGuard(token, responses);
        try {
            context.addStartupListener(new StartupListener() {
                @Override
                public void onCamelContextStarted(CamelContext started, boolean alreadyStarted) {
                    // platform-http's router is not there yet
                }

                @Override
                public void onCamelContextFullyStarted(CamelContext started, boolean alreadyStarted) {
                    for (VertxPlatformHttpRouter router : started.getRegistry().findByType(VertxPlatformHttpRouter.class)) {
                        guard.install(router);
                    }
                }
            });
        } catch (Exception e) {
            throw new IllegalStateException("cannot guard " + PATH, e);
        }
    }

    private void install(Router router) {
        // before every route of the router, whenever it was added
        router.route(PATH).order(Integer.MIN_VALUE).handler(this::check);
    }

    private void check(RoutingContext context) {
        String presented = Bearer.token(context.request().getHeader(Bearer.HEADER)).orElse("");
        if (Sha256.matches(tokenHash, presented)) {
            context.next();
            return;
        }
        context.response().setStatusCode(401).putHeader("Content-Type", "application/json")
                .putHeader("WWW-Authenticate", "Bearer").end(Buffer.buffer(refusal));
    }
}
