package dev.keypool.camel;

import java.time.Clock;
import java.util.List;

import javax.sql.DataSource;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.keypool.admin.RuntimeTenants;
import dev.keypool.admin.TenantRecord;
import dev.keypool.camel.admin.TenantAdmin;
import dev.keypool.camel.admin.TenantSync;
import dev.keypool.config.TenantConfig;
import dev.keypool.events.StateListener;
import dev.keypool.gateway.Channels;
import dev.keypool.redis.RedisLink;
import dev.keypool.store.JdbcTenantStore;
import org.apache.camel.CamelContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Tenants at runtime (design §9), bound once the database is open: the tenants of keypool.yaml seeded into the store
 * and laid over with what the admin API set there, those created through the admin API added, into the same
 * {@link dev.keypool.tenant.Tenants} every request authenticates against. Beans of routes/tenants.camel.yaml:
 * {@code tenantAdmin} and {@code tenantSync}.
 */
final class TenantStoreBeans {

    private static final Logger LOG = LoggerFactory.getLogger(TenantStoreBeans.class);

    private TenantStoreBeans() {
    }

    /** @param fileTenants the tenants of keypool.yaml */
    static RuntimeTenants bind(CamelContext context, List<TenantConfig> fileTenants, TenantBeans tenants, Channels channels,
                               RedisLink redis, Clock clock, StateListener events, ObjectMapper mapper) {
        DataSource dataSource = context.getRegistry().lookupByNameAndType("keypoolDataSource", DataSource.class);
        RuntimeTenants runtime = new RuntimeTenants(new JdbcTenantStore(dataSource), tenants.tenants(), tenants.make(),
                clock, events);
        runtime.fileRead(fileTenants, "startup");
        List<String> created = runtime.list().stream().filter(v -> v.origin() == TenantRecord.Origin.API)
                .map(RuntimeTenants.View::name).toList();
        if (!created.isEmpty()) {
            LOG.info("{} tenants created through the admin API ({}): every API request needs one's token",
                    created.size(), String.join(", ", created));
        }
        TenantSync sync = new TenantSync(runtime, redis);
        context.getRegistry().bind("tenantSync", sync);
        context.getRegistry().bind("tenantAdmin", new TenantAdmin(runtime, channels, mapper, sync::announce));
        return runtime;
    }
}
