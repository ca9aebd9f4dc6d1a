package dev.keypool.tenant;

import java.util.OptionalLong;

/**
 * What one admitted request of a tenant owes its limits: taken when it was admitted, settled once — with the usage
 * and cost of its answer as soon as it has one, or given back when the request ends without.
 */
public final class TenantCharge {

    private final Tenant tenant;
    private final TenantAdmission admission;
    private boolean settled;

    /** @param admission decided and not refused, or pending until the request's first key (design §11) */
    public TenantCharge(Tenant tenant, TenantAdmission admission) {
        this.tenant = tenant;
        this.admission = admission;
    }

    public Tenant tenant() {
        return tenant;
    }

    public TenantAdmission admission() {
        return admission;
    }

    /**
     * The tenant's limits as they stood when the request was admitted (or refused), for the x-ratelimit-* headers;
     * as they stand now for a request that ended before its admission was decided (it never reached a key).
     */
    public RateLimits rateLimits() {
        TenantLimits.Decision decision = admission.decision();
        return decision == null ? tenant.limits().rateLimits() : decision.rateLimits();
    }

    /**
     * The request was answered on an own key ({@code onOwnKey}) or a borrowed shared one, with this usage (0 when
     * the provider reported none: then the estimate stays counted): settled now, before the client has it all.
     */
    public synchronized void answered(boolean onOwnKey, long promptTokens, long completionTokens, double costUsd) {
        tenant.usage().record(onOwnKey, promptTokens, completionTokens, costUsd);
        long used = promptTokens + completionTokens;
        settle(used > 0 ? OptionalLong.of(used) : OptionalLong.empty(), true, costUsd);
    }

    /** The request is over, however it ended: one that got no answer gives its reserved tokens back. */
    public synchronized void end() {
        settle(OptionalLong.empty(), false, 0);
    }

    private void settle(OptionalLong usedTokens, boolean answered, double costUsd) {
        if (!settled && admission.decision() instanceof TenantLimits.Admitted admitted) {
            settled = true;
            tenant.limits().settle(admitted, usedTokens, answered, costUsd);
        }
    }
}
