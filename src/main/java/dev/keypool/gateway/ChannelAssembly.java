package dev.keypool.gateway;

import java.time.Clock;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import java.util.random.RandomGenerator;

import dev.keypool.breaker.BreakerPeers;
import dev.keypool.breaker.BreakerState;
import dev.keypool.breaker.BreakerStateChange;
import dev.keypool.breaker.ChannelBreaker;
import dev.keypool.config.ChannelConfig;
import dev.keypool.config.KeyConfig;
import dev.keypool.events.StateListener;
import dev.keypool.pool.ApiKey;
import dev.keypool.pool.KeyPool;
import dev.keypool.pool.PoolSettings;
import dev.keypool.pool.PoolSettingsBuilder;
import dev.keypool.pool.Rotation;
import dev.keypool.pool.SelectionStrategy;
import dev.keypool.quota.CostLedger;
import dev.keypool.quota.QuotaLedger;
import dev.keypool.quota.QuotaLimits;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Makes the channels of keypool.yaml at startup, and applies a reloaded file to the running ones (design §9 reload):
 * a channel that stays keeps its key pool (keys with an unchanged fingerprint keep state, counters and quota use),
 * its breaker and its cost ledger; a new channel is made; a removed channel's keys drain. Breakers are never made
 * twice for one name: a channel's route holds on to its breaker, so a channel that is removed and comes back gets
 * the same one.
 */
public final class ChannelAssembly {

    private static final Logger LOG = LoggerFactory.getLogger(ChannelAssembly.class);

    /** What a reload did: the channels by name, and each remaining or removed channel's keys by fingerprint. */
    public record Reload(List<String> added, List<String> kept, List<String> removed, Map<String, KeyPool.Reload> keys) {

        /** One line for the log and the reload's answer. */
        public String summary() {
            int keysAdded = keys.values().stream().mapToInt(k -> k.added().size()).sum();
            int keysRemoved = keys.values().stream().mapToInt(k -> k.removed().size()).sum();
            return "channels " + added.size() + " added, " + kept.size() + " kept, " + removed.size() + " removed; keys "
                    + keysAdded + " added, " + keysRemoved + " removed";
        }
    }

    private final Clock clock;
    private final StateListener listener;
    private final Function<String, ChannelMeters> meters;
    private final BreakerPeers peers;
    private final QuotaLedger.Factory ledgers;
    private final Rotation.Factory rotationFactory;
    /** One rotation per channel name for the gateway's life: a reload's new strategy goes on where the old one was. */
    private final Map<String, Rotation> rotations = new ConcurrentHashMap<>();
    private final Map<String, ChannelBreaker> breakers = new ConcurrentHashMap<>();
    private final Map<String, KeyPool> pools = new ConcurrentHashMap<>();
    private final Map<String, ChannelMeters> metersByChannel = new ConcurrentHashMap<>();
    /** The keys kept beside keypool.yaml for a channel (added through the admin API), which a reload keeps. */
    private volatile Function<ChannelConfig, List<ApiKey>> storedKeys = config -> List.of();
    /** Where cooling times are drawn from; null: the pool's own random. */
    private volatile RandomGenerator coolingRandom;
    /** The weight and limits a key of the file is made and reloaded with. */
    private volatile Tuning tuning = Tuning.FILE;

    /**
     * A key's weight and limits as they are in force: the file's, or an operator's laid over them (the admin API's
     * runtime changes). A reload gives a key these at once: given the file's first and the operator's after, a key
     * would serve the requests planned in between by the file's, and a window only the operator limits would start
     * over empty.
     */
    public interface Tuning {

        /** The file's own. */
        Tuning FILE = new Tuning() {
            @Override
            public int weight(ChannelConfig channel, KeyConfig key) {
                return key.weight();
            }

            @Override
            public QuotaLimits limits(ChannelConfig channel, KeyConfig key) {
                return key.limits();
            }
        };

        int weight(ChannelConfig channel, KeyConfig key);

        QuotaLimits limits(ChannelConfig channel, KeyConfig key);
    }

    /** @param meters the meters of the channel of a name, asked once per name */
    public ChannelAssembly(Clock clock, StateListener listener, Function<String, ChannelMeters> meters) {
        this(clock, listener, meters, BreakerPeers.LOCAL, QuotaLedger.Factory.LOCAL);
    }

    /**
     * @param peers   the other gateway instances' breakers of the same channels, which every breaker made here joins
     * @param ledgers where the keys' quota use is also counted when gateway instances share it (design §11)
     */
    public ChannelAssembly(Clock clock, StateListener listener, Function<String, ChannelMeters> meters, BreakerPeers peers,
                           QuotaLedger.Factory ledgers) {
        this(clock, listener, meters, peers, ledgers, Rotation.Factory.LOCAL);
    }

    /** @param rotations where each channel's round robin is when gateway instances share it (design §11) */
    public ChannelAssembly(Clock clock, StateListener listener, Function<String, ChannelMeters> meters, BreakerPeers peers,
                           QuotaLedger.Factory ledgers, Rotation.Factory rotations) {
        this.rotationFactory = Objects.requireNonNull(rotations, "rotations");
        this.ledgers = Objects.requireNonNull(ledgers, "ledgers");
        this.clock = Objects.requireNonNull(clock, "clock");
        this.listener = Objects.requireNonNull(listener, "listener");
        this.meters = Objects.requireNonNull(meters, "meters");
        this.peers = Objects.requireNonNull(peers, "peers");
    }

    /**
     * From now on a channel is made, and reloaded, with {@code stored} keys too: those of its name kept beside
     * keypool.yaml, not in the file.
     */
    public void keepStoredKeys(Function<ChannelConfig, List<ApiKey>> stored) {
        this.storedKeys = Objects.requireNonNull(stored, "stored");
    }

    /** From now on the channels are made, and reloaded, with their keys' weights and limits as {@code tuning} says. */
    public void tuneKeysBy(Tuning tuning) {
        this.tuning = Objects.requireNonNull(tuning, "tuning");
    }

    /** From now on the channels made draw their keys' cooling times from {@code random} (a test's seeded one). */
    public void drawCoolingFrom(RandomGenerator random) {
        this.coolingRandom = Objects.requireNonNull(random, "random");
    }

    /** A new channel: its pool of keys, and its breaker (the one made before for this name, if any). */
    public Channel build(ChannelConfig config) {
        PoolSettingsBuilder settings = PoolSettings.builder(config.name());
        RandomGenerator random = coolingRandom;
        if (random != null) {
            settings.jitter(random::nextDouble);
        }
        KeyPool pool = new KeyPool(settings
                .strategy(strategy(config))
                .cooling(config.cooling())
                .recovery(config.keyRecovery())
                .disableAfter(config.disableAfter())
                .quotaZone(config.quotaZone())
                .clock(clock)
                .listener(listener)
                .warmup(config.warmup())
                .degradedErrorRatePercent(config.breaker().errorRateThreshold())
                .degradedMinimumCalls(config.breaker().minimumCalls())
                .ledgers(ledgers)
                .build(), keys(config));
        pools.put(config.name(), pool);
        // the pool of the name, not this pool: a breaker outlives a removed channel's pool when the channel comes back
        ChannelBreaker breaker = breakers.computeIfAbsent(config.name(), name -> {
            ChannelBreaker made = new ChannelBreaker(name, config.breaker(), () -> pools.get(name).selection().hasActiveKey(), clock,
                    listener, peers);
            peers.attach(made);
            return made;
        });
        return new Channel(config, pool, breaker, new CostLedger(config.pricing()), meters(config.name()));
    }

    /**
     * Applies {@code configs} to {@code channels}, which then route every new request by them. Requests planned
     * before keep the channels they were given: a remaining channel's pool, breaker and ledger are the same objects,
     * and a removed channel still serves them.
     */
    public Reload reload(Channels channels, List<ChannelConfig> configs) {
        // every key and strategy made first: what could still be refused is refused before anything changes
        Map<String, List<ApiKey>> newKeys = new LinkedHashMap<>();
        configs.forEach(config -> {
            newKeys.put(config.name(), keys(config));
            SelectionStrategy.named(config.strategy());
        });
        Map<String, Channel> before = new LinkedHashMap<>();
        channels.all().forEach(c -> before.put(c.name(), c));
        List<Channel> next = new ArrayList<>();
        List<String> added = new ArrayList<>();
        List<String> kept = new ArrayList<>();
        Map<String, KeyPool.Reload> keys = new LinkedHashMap<>();
        for (ChannelConfig config : configs) {
            Channel old = before.remove(config.name());
            if (old == null) {
                Channel channel = build(config);
                next.add(channel);
                added.add(config.name());
                announce(channel, "added by reload");
                continue;
            }
            keys.put(config.name(), old.pool().reload(newKeys.get(config.name()), strategy(config),
                    config.cooling(), config.disableAfter(), config.keyRecovery()));
            old.costs().reprice(config.pricing());
            if (!old.config().breaker().equals(config.breaker())) {
                // its state and windows are what an operator relies on across a reload; new thresholds need a restart
                LOG.warn("Channel [{}] breaker settings changed in the file: the breaker keeps its state and its old "
                        + "settings until KeyPool restarts", config.name());
            }
            if (!old.config().quotaZone().equals(config.quotaZone())) {
                LOG.warn("Channel [{}] quotaZone changed in the file: the keys' day and month windows keep their zone "
                        + "until KeyPool restarts", config.name());
            }
            next.add(new Channel(config, old.pool(), old.breaker(), old.costs(), old.meters()));
            kept.add(config.name());
        }
        for (Channel gone : before.values()) {
            // its route stays for the requests still in it; its keys drain
            keys.put(gone.name(), gone.pool().reload(List.of(), strategy(gone.config()),
                    gone.config().cooling(), gone.config().disableAfter(), gone.config().keyRecovery()));
            announce(gone, "removed by reload, its keys drain");
        }
        channels.replace(next);
        return new Reload(added, kept, List.copyOf(before.keySet()), keys);
    }

    /** The channel's line and event: not a move of its breaker, which stays as it is. */
    private void announce(Channel channel, String what) {
        String line = "Channel [" + channel.name() + "] " + what;
        LOG.info(line);
        BreakerState state = channel.breaker().state();
        listener.stateChanged(new BreakerStateChange(clock.instant(), channel.name(), state, state, line));
    }

    private SelectionStrategy strategy(ChannelConfig config) {
        return SelectionStrategy.named(config.strategy(), rotations.computeIfAbsent(config.name(), rotationFactory::forChannel));
    }

    private ChannelMeters meters(String channel) {
        return metersByChannel.computeIfAbsent(channel, meters);
    }

    private List<ApiKey> keys(ChannelConfig config) {
        Tuning now = tuning;
        List<ApiKey> keys = new ArrayList<>(config.keys().stream().map(k -> key(config, k, now)).toList());
        keys.addAll(storedKeys.apply(config));
        return keys;
    }

    private static ApiKey key(ChannelConfig config, KeyConfig k, Tuning tuning) {
        return new ApiKey(k.key(), k.label(), tuning.weight(config, k), tuning.limits(config, k), k.rampPlan(), k.tenant());
    }
}
