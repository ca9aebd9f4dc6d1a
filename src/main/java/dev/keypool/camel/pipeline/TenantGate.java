package dev.keypool.camel.pipeline;

import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

import dev.keypool.auth.Bearer;
import dev.keypool.auth.ProviderAuth;
import dev.keypool.camel.http.RequestEdge;
import dev.keypool.gateway.GatewayError;
import dev.keypool.tenant.RateLimits;
import dev.keypool.tenant.Tenant;
import dev.keypool.tenant.TenantAdmission;
import dev.keypool.tenant.TenantCharge;
import dev.keypool.tenant.TenantLimits;
import dev.keypool.tenant.Tenants;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.ext.web.RoutingContext;
import org.apache.camel.Exchange;
import org.apache.camel.component.platform.http.vertx.HttpMessage;
import org.apache.camel.support.SynchronizationAdapter;

/**
 * The tenant steps of the gateway core (design §7): who is calling, and whether its own limits let the request go.
 * With no tenants configured both let every request through.
 */
public final class TenantGate {

    private final Tenants tenants;
    /**
     * The tenant {@link RequestEdge} found on a request's headers, until the request is answered: the route takes it
     * from here rather than hash the token a second time.
     */
    private final Map<HttpServerRequest, Tenant> foundAtEdge = new ConcurrentHashMap<>();

    public TenantGate(Tenants tenants) {
        this.tenants = tenants;
    }

    /**
     * Whether the request of this HTTP exchange carries a tenant's token, for {@link RequestEdge}; the tenant is kept
     * for {@link #authenticate} until the request is answered.
     */
    public boolean authenticateAtEdge(RoutingContext context) {
        HttpServerRequest request = context.request();
        Tenant tenant = tenantOf(request.getHeader(Bearer.HEADER), request.getHeader(ProviderAuth.X_API_KEY.headerName()))
                .orElse(null);
        if (tenant == null) {
            return false;
        }
        foundAtEdge.put(request, tenant);
        context.addEndHandler(v -> foundAtEdge.remove(request));
        return true;
    }

    /**
     * 401 {@code invalid_api_key} unless the request carries a tenant's token: {@code Authorization: Bearer <token>},
     * or {@code x-api-key: <token>} as Anthropic's clients send it. A request of a host application through the
     * keypool component names its tenant instead (the host is trusted as a token holder is); an unknown name is 401 too.
     */
    public void authenticate(Exchange exchange) {
        if (!tenants.enforced()) {
            return;
        }
        String named = exchange.getProperty(Exchanges.NAMED_TENANT, String.class);
        if (named != null) {
            exchange.setProperty(Exchanges.TENANT, tenants.named(named).orElseThrow(GatewayError::invalidApiKey));
            return;
        }
        Tenant tenant = foundAtEdge(exchange);
        if (tenant == null) {
            tenant = tenantOf(exchange.getMessage().getHeader(Bearer.HEADER, String.class),
                    exchange.getMessage().getHeader(ProviderAuth.X_API_KEY.headerName(), String.class))
                    .orElseThrow(GatewayError::invalidApiKey);
        }
        exchange.setProperty(Exchanges.TENANT, tenant);
    }

    /**
     * The tenant the edge found on this exchange's HTTP request, if a reload has not removed or changed it since (then
     * the token is looked up again); null for a request that came another way (keypool component, Kamelets).
     */
    private Tenant foundAtEdge(Exchange exchange) {
        if (!(exchange.getMessage() instanceof HttpMessage http)) {
            return null;
        }
        Tenant tenant = foundAtEdge.get(http.getRequest());
        return tenant != null && tenants.isCurrent(tenant) ? tenant : null;
    }

    /** The tenant whose token a request carries in its {@code Authorization} or {@code x-api-key} header. */
    Optional<Tenant> tenantOf(String authorization, String apiKey) {
        String token = Bearer.token(authorization).orElse(apiKey);
        return tenants.authenticate(token == null ? null : token.trim());
    }

    /**
     * Takes the request from its tenant's limits (rpm bucket, tpm with the request's estimate, rpd, budget), or
     * answers 429 {@code tenant_rate_limited} / {@code budget_exceeded} with Retry-After before any key is chosen.
     * Limits shared with other instances (design §11) are decided with the request's first key reservation instead, in
     * the same call to Redis ({@link KeySelector#select}). The charge is settled when the exchange completes, whatever
     * the way out.
     */
    public void admit(Exchange exchange) {
        Tenant tenant = exchange.getProperty(Exchanges.TENANT, Tenant.class);
        if (tenant == null) {
            return;
        }
        enterInFlight(exchange, tenant);
        ClientRequest request = exchange.getProperty(Exchanges.CLIENT_REQUEST, ClientRequest.class);
        TenantAdmission admission = tenant.limits().admission(() -> request.estimate().total());
        if (admission.decided()) {
            exchange.setProperty(Exchanges.RATE_LIMITS, admission.decision().rateLimits());
            throwIfRefused(admission);
        }
        TenantCharge charge = new TenantCharge(tenant, admission);
        exchange.setProperty(Exchanges.TENANT_CHARGE, charge);
        exchange.getExchangeExtension().addOnCompletion(new SynchronizationAdapter() {
            @Override
            public void onDone(Exchange completed) {
                charge.end();
            }
        });
    }

    /**
     * One of the tenant's places in flight ({@code maxInFlight}), given back when the exchange completes whatever the
     * way out (answer, error, end of a stream, client gone), or 429 {@code tenant_rate_limited} with Retry-After: 1.
     */
    private static void enterInFlight(Exchange exchange, Tenant tenant) {
        if (!tenant.tryEnterInFlight()) {
            throw GatewayError.tenantLimited("tenant_rate_limited", "Tenant " + tenant.name() + " has its maximum of "
                    + tenant.maxInFlight().orElse(0) + " requests in flight; retry when one has ended", 1L);
        }
        exchange.getExchangeExtension().addOnCompletion(new SynchronizationAdapter() {
            @Override
            public void onDone(Exchange completed) {
                tenant.leaveInFlight();
            }
        });
    }

    /** Decides a pending admission by a call of its own (no key's reservation carried it), then {@link #throwIfRefused}. */
    static void decideAlone(TenantAdmission pending) {
        pending.decideAlone();
        throwIfRefused(pending);
    }

    /** 429 {@code tenant_rate_limited} / {@code budget_exceeded} with Retry-After when the tenant refused the request. */
    static void throwIfRefused(TenantAdmission admission) {
        if (admission.decision() instanceof TenantLimits.Refused refused) {
            throw GatewayError.tenantLimited(refused.refusal().code(), refused.message(), seconds(refused.retryAfter()));
        }
    }

    /** The tenant's x-ratelimit-* headers on an error answer, as on every other answer to a tenant. */
    static void addRateLimitHeaders(Exchange exchange) {
        TenantCharge charge = exchange.getProperty(Exchanges.TENANT_CHARGE, TenantCharge.class);
        RateLimits limits = charge != null ? charge.rateLimits() : exchange.getProperty(Exchanges.RATE_LIMITS, RateLimits.class);
        if (limits != null) {
            limits.headers().forEach(exchange.getMessage()::setHeader);
        }
    }

    public Tenants tenants() {
        return tenants;
    }

    private static long seconds(Duration wait) {
        return Math.max(1, (wait.toMillis() + 999) / 1000);
    }
}
