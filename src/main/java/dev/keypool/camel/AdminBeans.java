package dev.keypool.camel;

import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.concurrent.Executor;
import java.util.concurrent.ThreadLocalRandom;
import java.util.stream.Collectors;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.keypool.admin.Cluster;
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
import dev.keypool.camel.http.LeaveEventLoop;
import dev.keypool.camel.pipeline.Admission;
import dev.keypool.config.ConfigLoader;
import dev.keypool.config.GatewayConfig;
import dev.keypool.fault.FaultPeers;
import dev.keypool.fault.Faults;
import dev.keypool.gateway.Channel;
import dev.keypool.metrics.GatewayMetrics;
import dev.keypool.pool.ApiKey;
import dev.keypool.probe.ProbeLeases;
import dev.keypool.probe.ProbeSchedule;
import dev.keypool.quota.CapacityQueue;
import dev.keypool.quota.QuotaStateFile;
import dev.keypool.redis.RedisFaults;
import dev.keypool.redis.RedisLink;
import dev.keypool.redis.RedisProbeLeases;
import dev.keypool.redis.SharedState;
import org.apache.camel.CamelContext;
import org.apache.camel.spi.Registry;

/**
 * The beans of the admin routes (routes/admin.camel.yaml, probes, faults, state): status, operators' actions, events,
 * reload, health probes, fault injection, and the quota state kept across restarts.
 */
final class AdminBeans {

    private AdminBeans() {
    }

    /**
     * @param redis    the Redis shared with other instances, or null: with it, one instance probes each channel, and
     *                 faults and reloads act on every instance
     * @param instance this instance, as /admin/status and the other instances see it
     */
    static void bind(CamelContext context, GatewayConfig config, Path file, ConfigLoader loader, ChannelBeans channels,
            TenantBeans tenants, RuntimeTenants runtimeTenants, CapacityQueue capacityQueue, GatewayMetrics metrics,
            ObjectMapper mapper, Clock clock, RedisLink redis, ClusterBeans.Identity instance) {
        Registry registry = context.getRegistry();
        AdminGuard adminGuard = new AdminGuard(config.admin() == null ? null : config.admin().token());
        registry.bind("adminGuard", adminGuard);
        registry.bind("adminActions", new AdminActions(channels.all(), channels.runtimeChanges(), channels.changesStore(),
                metrics, mapper));
        registry.bind("adminEvents", new AdminEvents(channels.eventLog(), mapper));
        registry.bind("adminDashboard", new AdminDashboard());
        // health probes (routes/probes.camel.yaml): with Redis, each channel's keys probed by the instance holding its lease
        ProbeLeases leases = redis == null ? ProbeLeases.ALONE
                : new RedisProbeLeases(redis, Duration.ofMillis(Wiring.longSetting(context, "keypool.probe-lease-ms")));
        ProbeSchedule probeSchedule = new ProbeSchedule(channels.all().all(), clock, leases);
        registry.bind("healthProbes", new HealthProbes(probeSchedule, mapper, clock));
        // provider keys added through the admin API, from the database into their channels' pools
        ProviderKeyBeans.bind(context, channels.all(), channels.assembly(), clock, metrics, probeSchedule);
        ConfigReloader reloader = new ConfigReloader(context, file, loader, config, channels.assembly(), channels.all(),
                channels.runtimeChanges(), adminGuard, metrics, probeSchedule, mapper, runtimeTenants);
        registry.bind("configReloader", reloader);
        // the instances sharing the Redis: their heartbeats (routes/state.camel.yaml), /admin/status, reload of all
        Admission admission = registry.lookupByNameAndType("admission", Admission.class);
        Cluster cluster = ClusterBeans.bind(context, instance, redis,
                () -> admission == null ? 0 : admission.limit().inFlight(), reloader::digest, clock);
        reloader.joinCluster(cluster, Duration.ofMillis(Wiring.longSetting(context, "keypool.cluster.reload-wait-ms")));
        registry.bind("adminStatus", new AdminStatus(channels.all(), capacityQueue, tenants.tenants(), mapper, cluster,
                redis == null ? SharedState.LOCAL : redis, clock));
        // fault injection (routes/faults.camel.yaml, upstream-attempt), on every instance sharing the Redis
        FaultInjector faults = new FaultInjector(new Faults(() -> channels.all().all().stream().collect(Collectors.toMap(
                Channel::name, c -> c.pool().keys().stream().map(ApiKey::fingerprint).collect(Collectors.toSet()))), clock,
                () -> ThreadLocalRandom.current().nextDouble(), redis == null ? FaultPeers.ALONE : new RedisFaults(redis, clock)),
                mapper);
        registry.bind("faults", faults);
        // ahead of faults.apply: a fault in force may delay the call, or fail it into a retry's backoff
        registry.bind("offEventLoopForFaults", new LeaveEventLoop(
                registry.lookupByNameAndType(UpstreamBeans.ANSWER_THREADS, Executor.class), faults::inForce));
        // read back now, before any route takes traffic; written by the quota-state timer route and when the context stops
        QuotaStateKeeper quotaState = new QuotaStateKeeper(channels.all(), new QuotaStateFile(channels.stateDir()));
        registry.bind("quotaState", quotaState);
        Wiring.addService(context, quotaState);
    }
}
