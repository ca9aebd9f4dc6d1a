package dev.keypool.camel;

import java.time.Clock;
import java.util.List;
import java.util.function.Function;

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
 * @param of makes tenants of their configuration, at startup and for a reload
 */
record TenantBeans(Tenants tenants, Function<List<TenantConfig>, Tenants> of) {

    static TenantBeans of(CamelContext context, List<TenantConfig> configs, RedisLink redis, Clock clock) {
        // unset: a tenant without maxInFlight of its own has no limit on its requests in flight
        Integer tenantMaxInFlight = Wiring.optionalSetting(context, "keypool.tenant-max-in-flight").map(Integer::valueOf)
                .orElse(null);
        Function<List<TenantConfig>, Tenants> of = made -> new Tenants(made.stream()
                .map(t -> new Tenant(t.name(), t.token(), t.priority(), t.channels(), t.models(), t.borrow(),
                        limits(t, redis, clock), t.maxInFlight() != null ? t.maxInFlight() : tenantMaxInFlight))
                .toList());
        return new TenantBeans(of.apply(configs), of);
    }

    private static TenantLimits limits(TenantConfig t, RedisLink redis, Clock clock) {
        int burst = t.bucketSize() == null ? 1 : t.bucketSize();
        return redis == null
                ? new LocalTenantLimits(t.name(), t.rpm(), burst, t.tpm(), t.rpd(), t.budgetDaily(), t.budgetMonthly(), clock)
                : RedisTenantLimits.shared(t.name(), t.rpm(), burst, t.tpm(), t.rpd(), t.budgetDaily(), t.budgetMonthly(),
                        redis, clock);
    }
}
