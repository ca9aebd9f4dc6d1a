package dev.keypool.camel;

import java.time.Clock;
import java.util.List;
import java.util.function.Function;

import dev.keypool.admin.RuntimeTenants;
import dev.keypool.config.TenantConfig;
import dev.keypool.redis.RedisLink;
import dev.keypool.redis.RedisTenantLimits;
import dev.keypool.tenant.LocalTenantLimits;
import dev.keypool.tenant.Tenant;
import dev.keypool.tenant.TenantLimits;
import dev.keypool.tenant.Tenants;
import org.apache.camel.CamelContext;

/**
 * The tenants of keypool.yaml, with their limits kept in this instance, or shared through Redis when there is one.
 *
 * @param make makes one tenant of its configuration and its access (token hashes, expiry), for tenants at runtime
 */
record TenantBeans(Tenants tenants, RuntimeTenants.Factory make) {

    static TenantBeans of(CamelContext context, List<TenantConfig> configs, RedisLink redis, Clock clock) {
        // unset: a tenant without maxInFlight of its own has no limit on its requests in flight
        Integer tenantMaxInFlight = Wiring.optionalSetting(context, "keypool.tenant-max-in-flight").map(Integer::valueOf)
                .orElse(null);
        Function<List<TenantConfig>, Tenants> of = made -> new Tenants(made.stream()
                .map(t -> new Tenant(t.name(), t.token(), t.priority(), t.channels(), t.models(), t.borrow(),
                        limits(t, redis, clock), t.maxInFlight() != null ? t.maxInFlight() : tenantMaxInFlight))
                .toList(), clock);
        // a maxInFlight of 0 set through the admin API: no limit, not even the gateway's default
        RuntimeTenants.Factory make = (t, access) -> new Tenant(t.name(), access, t.priority(), t.channels(), t.models(),
                t.borrow(), limits(t, redis, clock), t.maxInFlight() == null ? tenantMaxInFlight
                : t.maxInFlight() == 0 ? null : t.maxInFlight());
        return new TenantBeans(of.apply(configs), make);
    }

    private static TenantLimits limits(TenantConfig t, RedisLink redis, Clock clock) {
        int burst = t.bucketSize() == null ? 1 : t.bucketSize();
        return redis == null
                ? new LocalTenantLimits(t.name(), t.rpm(), burst, t.tpm(), t.rpd(), t.budgetDaily(), t.budgetMonthly(), clock)
                : RedisTenantLimits.shared(t.name(), t.rpm(), burst, t.tpm(), t.rpd(), t.budgetDaily(), t.budgetMonthly(),
                        redis, clock);
    }
}
