package dev.keypool.camel;

import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.random.RandomGenerator;
import java.util.stream.Collectors;

import dev.keypool.admin.RuntimeChanges;
import dev.keypool.admin.RuntimeChangesFile;
import dev.keypool.admin.RuntimeChangesStore;
import dev.keypool.breaker.BreakerPeers;
import dev.keypool.camel.routes.ChannelRouteNames;
import dev.keypool.config.ChannelConfig;
import dev.keypool.config.GatewayConfig;
import dev.keypool.events.EventLog;
import dev.keypool.events.StateListeners;
import dev.keypool.gateway.Channel;
import dev.keypool.gateway.ChannelAssembly;
import dev.keypool.gateway.Channels;
import dev.keypool.metrics.GatewayMetrics;
import dev.keypool.pool.ApiKey;
import dev.keypool.pool.Rotation;
import dev.keypool.quota.QuotaLedger;
import dev.keypool.redis.ClusterEvents;
import dev.keypool.redis.RedisBreakers;
import dev.keypool.redis.RedisLink;
import dev.keypool.redis.RedisQuotaLedger;
import dev.keypool.redis.RedisRuntimeChanges;
import dev.keypool.redis.SharedRotation;
import org.apache.camel.CamelContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The channels of keypool.yaml with their keys and breakers, the listeners of their state changes, and the operators'
 * changes laid over them.
 *
 * @param stateDir where the state files live ({@code state.dir})
 */
record ChannelBeans(Channels all, ChannelAssembly assembly, StateListeners stateListeners, EventLog eventLog,
        RuntimeChanges runtimeChanges, RuntimeChangesStore changesStore, Path stateDir) {

    private static final Logger LOG = LoggerFactory.getLogger(ChannelBeans.class);

    /** @param instance this instance's id, which its events carry */
    static ChannelBeans bind(CamelContext context, GatewayConfig config, Clock clock, GatewayMetrics metrics, RedisLink redis,
                             String instance) {
        // every key and breaker state change, for whoever listens (admin events, metrics, shared state)
        StateListeners stateListeners = new StateListeners();
        context.getRegistry().bind("stateListeners", stateListeners);
        // the last 1,000 of them for GET /admin/events and its stream; with Redis, the other instances' too
        EventLog eventLog = new EventLog(1000, instance);
        stateListeners.add(eventLog);
        if (redis != null) {
            ClusterEvents.share(redis, eventLog);
        }
        context.getRegistry().bind("eventLog", eventLog);
        // with Redis, each breaker announces its decisions to the other instances' and shares their probe budget, and
        // each key's quota reservation is also taken in the count the instances share (design §11)
        BreakerPeers breakerPeers = redis == null ? BreakerPeers.LOCAL : new RedisBreakers(redis);
        // and the instances rotate over a channel's keys as one
        ChannelAssembly assembly = new ChannelAssembly(clock, stateListeners, metrics::channel, breakerPeers,
                redis == null ? QuotaLedger.Factory.LOCAL : RedisQuotaLedger.on(redis),
                redis == null ? Rotation.Factory.LOCAL : SharedRotation.on(redis, Wiring.intSetting(context, "keypool.rotation-lease")));
        // a RandomGenerator bound before startup (a test's seeded one) draws the cooling times, as a Clock bean keeps time
        RandomGenerator coolingRandom = context.getRegistry().findSingleByType(RandomGenerator.class);
        if (coolingRandom != null) {
            assembly.drawCoolingFrom(coolingRandom);
        }
        List<Channel> channels = new ArrayList<>();
        for (ChannelConfig c : config.channels()) {
            Channel channel = assembly.build(c);
            // the channel route's circuitBreaker step decides with this breaker (its configuration: breaker-<channel>)
            context.getRegistry().bind(ChannelRouteNames.breaker(c.name()), channel.breaker());
            channels.add(channel);
            if (c.baseUrl().contains("/demo/v1")) {
                LOG.info("Channel [{}] calls the built-in demo upstream SIMULATOR (canned answers, not a real LLM)", c.name());
            }
            List<ApiKey> keys = channel.pool().keys();
            LOG.info("Channel [{}]: {} keys ({}), models {}, fallback {}", c.name(), keys.size(),
                    keys.stream().map(ApiKey::fingerprint).collect(Collectors.joining(", ")), c.models(), c.fallback());
        }
        Channels all = new Channels(channels);
        context.getRegistry().bind("channels", all);
        // operators' changes made through the admin API before the last stop, laid over the file
        Path stateDir = Path.of(Wiring.setting(context, "state.dir"));
        RuntimeChangesFile changesFile = new RuntimeChangesFile(stateDir);
        RuntimeChanges runtimeChanges = changesFile.read();
        all.all().forEach(runtimeChanges::applyTo);
        // and over what a reload makes or reloads, as it makes it
        assembly.tuneKeysBy(runtimeChanges);
        // with Redis, the changes made through any instance's admin API reach the others too
        RuntimeChangesStore changesStore = redis == null ? changesFile
                : new RedisRuntimeChanges(redis, changesFile, runtimeChanges, all);
        return new ChannelBeans(all, assembly, stateListeners, eventLog, runtimeChanges, changesStore, stateDir);
    }
}
