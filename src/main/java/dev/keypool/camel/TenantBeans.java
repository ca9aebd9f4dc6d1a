package dev.keypool.camel;

import java.time.Clock;
import java.util.List;
import java.util.stream.Collectors;

import javax.sql.DataSource;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.keypool.admin.RuntimeTenants;
import dev.keypool.config.TenantConfig;
import dev.keypool.events.StateListener;
import dev.keypool.gateway.Channels;
import dev.keypool.shared.RedisLink;
import dev.keypool.store.JdbcTenantStore;
import dev.keypool.tenant.Tenant;
import dev.keypool.tenant.Tenants;
import org.apache.camel.CamelContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Tenants at runtime (design §9), bound by {@link GatewayConfiguration} once the database is open: the tenants of
 * keypool.yaml seeded into the store and laid over with what the admin API set there, those created through the admin
 * API added, into the same {@link Tenants} every request authenticates against. Beans of routes/tenants.camel.yaml:
 * {@code tenantAdmin} and {@code tenantSync}.
 */
final class TenantBeans {

    private static final Logger LOG = LoggerFactory.getLogger(TenantBeans.class);

    private TenantBeans() {
    }

    /**
     * @param fileTenants       the tenants of keypool.yaml
     * @param tenantMaxInFlight {@code keypool.tenant-max-in-flight}, for a tenant that sets no {@code maxInFlight}
     */
    static RuntimeTenants bind(CamelContext context, List<TenantConfig> fileTenants, Tenants tenants, Channels channels,
                               RedisLink redis, Clock clock, Integer tenantMaxInFlight, StateListener events,
                               ObjectMapper mapper) {
        DataSource dataSource = context.getRegistry().lookupByNameAndType("keypoolDataSource", DataSource.class);
        RuntimeTenants runtime = new RuntimeTenants(new JdbcTenantStore(dataSource), tenants, (tenant, access) ->
                new Tenant(tenant.name(), access, tenant.priority(), tenant.channels(), tenant.models(), tenant.borrow(),
                        GatewayConfiguration.tenantLimits(tenant, redis, clock), maxInFlight(tenant, tenantMaxInFlight)),
                clock, events);
        runtime.fileRead(fileTenants, "startup");
        List<String> created = runtime.list().stream().filter(v -> v.origin() == dev.keypool.admin.TenantRecord.Origin.API)
                .map(RuntimeTenants.View::name).collect(Collectors.toList());
        if (!created.isEmpty()) {
            LOG.info("{} tenants created through the admin API ({}): every API request needs one's token",
                    created.size(), String.join(", ", created));
        }
        TenantSync sync = new TenantSync(runtime, redis);
        context.getRegistry().bind("tenantSync", sync);
        context.getRegistry().bind("tenantAdmin", new TenantAdmin(runtime, channels, mapper, sync::announce));
        return runtime;
    }

    /** Its own {@code maxInFlight}, 0 for none at all; else the gateway's default. */
    private static Integer maxInFlight(TenantConfig tenant, Integer tenantMaxInFlight) {
        if (tenant.maxInFlight() == null) {
            return tenantMaxInFlight;
        }
        return tenant.maxInFlight() == 0 ? null : tenant.maxInFlight();
    }
}
