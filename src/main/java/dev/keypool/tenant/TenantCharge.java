package dev.keypool.tenant;

import java.util.OptionalLong;

/**
 * What one admitted request of a tenant owes its limits: taken when it was admitted, settled once — with the usage
 * and cost of its answer as soon as it has one, or given back when the request ends without.
 */
public final class TenantCharge {

    private final Tenant tenant;
    private final TenantLimits.Admitted admitted;
    private boolean settled;

    public TenantCharge(Tenant tenant, TenantLimits.Admitted admitted) {
        this.tenant = tenant;
        this.admitted = admitted;
    }

    public Tenant tenant() {
        return tenant;
    }

    /** The tenant's limits as they stood when the request was admitted, for the x-ratelimit-* headers. */
    public RateLimits rateLimits() {
        return admitted.rateLimits();
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
        if (!settled) {
            settled = true;
            tenant.limits().settle(admitted, usedTokens, answered, costUsd);
        }
    }
}
