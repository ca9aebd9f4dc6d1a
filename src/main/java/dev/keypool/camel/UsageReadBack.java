package dev.keypool.camel;

import java.time.Clock;
import java.util.Map;

import dev.keypool.gateway.Channels;
import dev.keypool.store.UsageTotals;
import dev.keypool.tenant.Tenant;
import dev.keypool.tenant.Tenants;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * At start, before any request: the spend the request log holds goes back into the figures kept in memory, so that a
 * restart neither gives a tenant its day's or month's budget again nor starts the cost per channel, key and model at
 * zero (docs/operations.md, "What survives a restart"). With Redis, the tenants' shared counts stay authoritative;
 * this fills each tenant's local fallback, used while Redis is away. A database that cannot answer leaves the figures
 * at zero, with one WARN: the gateway starts all the same.
 */
final class UsageReadBack {

    private static final Logger LOG = LoggerFactory.getLogger(UsageReadBack.class);

    private UsageReadBack() {
    }

    static void restore(UsageTotals totals, Channels channels, Tenants tenants, Clock clock) {
        long start = System.nanoTime();
        try {
            Map<String, UsageTotals.TenantSpend> spend = tenants.enforced() ? totals.tenantSpend(clock.instant()) : Map.of();
            int tenantsRestored = 0;
            for (Tenant tenant : tenants.all()) {
                UsageTotals.TenantSpend spent = spend.get(tenant.name());
                if (spent != null) {
                    tenant.limits().restoreSpent(spent.today(), spent.thisMonth());
                    tenantsRestored++;
                }
            }
            int rows = 0;
            for (UsageTotals.KeyCost cost : totals.keyCosts()) {
                var channel = channels.get(cost.channel());
                if (channel.isPresent()) {
                    channel.get().costs().restore(cost.keyFingerprint(), cost.model(), cost.promptTokens(),
                            cost.completionTokens(), cost.costUsd());
                    rows++;
                }
            }
            LOG.info("Spend read back from the request log in {} ms: {} tenants' budgets of this day and month, cost of "
                    + "{} channel/key/model totals", (System.nanoTime() - start) / 1_000_000, tenantsRestored, rows);
        } catch (RuntimeException e) {
            LOG.warn("Spend not read back from the request log ({}): tenant budgets and cost figures start at zero",
                    e.getMessage());
        }
    }
}
