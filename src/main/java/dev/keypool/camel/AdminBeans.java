package dev.keypool.camel;

import java.nio.file.Path;
import java.time.Clock;
import java.util.concurrent.ThreadLocalRandom;
import java.util.stream.Collectors;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.keypool.admin.RuntimeTenants;
import dev.keypool.camel.admin.AdminActions;
import dev.keypool.camel.admin.AdminDashboard;
import dev.keypool.camel.admin.AdminEvents;
import dev.keypool.camel.admin.AdminGuard;
import dev.keypool.camel.admin.AdminStatus;
import dev.keypool.camel.admin.ConfigReloader;
import dev.keypool.camel.admin.FaultInjector;
import dev.keypool.camel.admin.HealthProbes;
import dev.keypool.camel.admin.QuotaStateKeeper;
import dev.keypool.config.ConfigLoader;
import dev.keypool.config.GatewayConfig;
import dev.keypool.fault.Faults;
import dev.keypool.gateway.Channel;
import dev.keypool.metrics.GatewayMetrics;
import dev.keypool.pool.ApiKey;
import dev.keypool.probe.ProbeSchedule;
import dev.keypool.quota.CapacityQueue;
import dev.keypool.quota.QuotaStateFile;
import org.apache.camel.CamelContext;
import org.apache.camel.spi.Registry;

/**
 * The beans of the admin routes (routes/admin.camel.yaml, probes, faults, state): status, operators' actions, events,
 * reload, health probes, fault injection, and the quota state kept across restarts.
 */
final class AdminBeans {

    private AdminBeans() {
    }

    static void bind(CamelContext context, GatewayConfig config, Path file, ConfigLoader loader, ChannelBeans channels,
            TenantBeans tenants, RuntimeTenants runtimeTenants, CapacityQueue capacityQueue, GatewayMetrics metrics,
            ObjectMapper mapper, Clock clock) {
        Registry registry = context.getRegistry();
        AdminGuard adminGuard = new AdminGuard(config.admin() == null ? null : config.admin().token());
        registry.bind("adminGuard", adminGuard);
        registry.bind("adminStatus", new AdminStatus(channels.all(), capacityQueue, tenants.tenants(), mapper));
        registry.bind("adminActions", new AdminActions(channels.all(), channels.runtimeChanges(), channels.changesStore(),
                metrics, mapper));
        registry.bind("adminEvents", new AdminEvents(channels.eventLog(), mapper));
        registry.bind("adminDashboard", new AdminDashboard());
        // health probes (routes/probes.camel.yaml) and fault injection (routes/faults.camel.yaml, upstream-attempt)
        ProbeSchedule probeSchedule = new ProbeSchedule(channels.all().all(), clock);
        registry.bind("healthProbes", new HealthProbes(probeSchedule, mapper, clock));
        // provider keys added through the admin API, from the database into their channels' pools
        ProviderKeyBeans.bind(context, channels.all(), channels.assembly(), clock, metrics, probeSchedule);
        registry.bind("configReloader", new ConfigReloader(context, file, loader, config, channels.assembly(), channels.all(),
                channels.runtimeChanges(), adminGuard, metrics, probeSchedule, mapper, runtimeTenants));
        registry.bind("faults", new FaultInjector(new Faults(() -> channels.all().all().stream().collect(Collectors.toMap(
                Channel::name, c -> c.pool().keys().stream().map(ApiKey::fingerprint).collect(Collectors.toSet()))), clock,
                () -> ThreadLocalRandom.current().nextDouble()), mapper));
        // read back now, before any route takes traffic; written by the quota-state timer route and when the context stops
        QuotaStateKeeper quotaState = new QuotaStateKeeper(channels.all(), new QuotaStateFile(channels.stateDir()));
        registry.bind("quotaState", quotaState);
        Wiring.addService(context, quotaState);
    }
}
