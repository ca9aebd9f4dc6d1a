package dev.keypool.probe;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;

import dev.keypool.config.ChannelConfig;
import dev.keypool.config.ProbeConfig;
import dev.keypool.gateway.Channel;
import dev.keypool.pool.ApiKey;
import dev.keypool.pool.KeyPool;
import dev.keypool.pool.KeyState;

/**
 * When each key is probed (design §8). A channel with a {@code probe} block has its ACTIVE keys probed every
 * {@code interval} and its DISABLED keys every {@code disabledInterval}; COOLING keys wait for their deadline, and
 * keys an operator disabled are left to the operator. The probes of a channel's N keys are spread evenly: key i's
 * probes fall on the slots {@code start + i·P/N + k·P} of its current period P, one per slot however late the
 * schedule is asked, and never two in flight for the same key. Asked on a beat by the probe-tick route; time is
 * the clock's. A channel without a {@code probe} block has its DISABLED keys probed when its pool's recovery plans
 * (KeyHealing#probeDue, spread by the key's place), with GET /models, or with a one-token chat of the channel's first
 * model once /models answered 404 there. With several instances, only the channels whose probe lease this instance
 * holds are probed on the schedule, the cold start included ({@link ProbeLeases}); an operator's probe of every key
 * goes out from the instance asked. Thread-safe.
 */
public final class ProbeSchedule {

    /** What a channel without a {@code probe} block is probed with when an operator asks for every key. */
    private static final ProbeConfig ON_DEMAND = new ProbeConfig(Duration.ZERO, Duration.ZERO,
            ProbeConfig.Request.MODELS, null, ProbeConfig.DEFAULT_TIMEOUT);

    private final class Slot {
        final Channel channel;
        final ApiKey key;
        final ProbeConfig config;
        final boolean scheduled;
        final int index;
        final int count;
        final AtomicBoolean inFlight;
        volatile Instant lastStart;

        /** @param before the slot of the same channel and key before a reload, null for a new one */
        Slot(Channel channel, ApiKey key, int index, Slot before) {
            this.channel = channel;
            this.key = key;
            this.scheduled = channel.config().probe() != null;
            this.config = scheduled ? channel.config().probe() : ON_DEMAND;
            this.index = index;
            this.count = channel.pool().keys().size();
            // a key that stays keeps its probe in flight and the time of its last one
            this.inFlight = before == null ? new AtomicBoolean() : before.inFlight;
            this.lastStart = before == null ? start : before.lastStart;
        }

        String id() {
            return channel.name() + "/" + key.fingerprint();
        }

        /** The probe period for the key's state now; zero when it is not probed in that state. */
        Duration period() {
            KeyPool pool = channel.pool();
            if (!scheduled || pool.disabledByOperator(key)) {
                return Duration.ZERO;
            }
            KeyState state = pool.stateOf(key);
            return state == KeyState.ACTIVE ? config.interval()
                    : state == KeyState.DISABLED ? config.disabledInterval() : Duration.ZERO;
        }

        /** The first of this key's slots of {@code period} after its last probe began. */
        Instant nextSlot(Duration period) {
            long periodMs = period.toMillis();
            Instant first = start.plusMillis(periodMs * index / count);
            long since = Duration.between(first, lastStart).toMillis();
            return since < 0 ? first : first.plusMillis((since / periodMs + 1) * periodMs);
        }

        /** Whether the key, DISABLED in a channel without a probe block, is due for a recovery probe. */
        boolean recoveryDue(Instant now) {
            if (scheduled) {
                return false;
            }
            Instant due = channel.pool().healing().probeDue(key, (double) index / count);
            return due != null && !now.isBefore(due);
        }

        /** The recovery probe of this key: GET /models, or a one-token chat where the provider has no /models. */
        Probe startRecovery(Instant now) {
            String model = channel.config().models().stream().filter(m -> !ChannelConfig.ANY_MODEL.equals(m))
                    .findFirst().orElse(null);
            ProbeConfig recovery = model != null && withoutModels.contains(channel.name())
                    ? new ProbeConfig(Duration.ZERO, Duration.ZERO, ProbeConfig.Request.CHAT, model, ProbeConfig.DEFAULT_TIMEOUT)
                    : ON_DEMAND;
            return start(now, recovery, () -> withoutModels.add(channel.name()));
        }

        /** The probe of this key, in flight from now; skipped when one is in flight already or its quota has no room. */
        Probe start(Instant now) {
            return start(now, config, null);
        }

        private Probe start(Instant now, ProbeConfig config, Runnable modelsMissing) {
            if (!inFlight.compareAndSet(false, true)) {
                return Probe.skipped(channel, key, config, "a probe of this key is in flight");
            }
            lastStart = now;
            long tokens = config.request() == ProbeConfig.Request.CHAT ? Probe.CHAT_TOKENS : 0;
            Optional<KeyPool.Lease> lease = channel.pool().leases().startProbe(key, tokens);
            if (lease.isEmpty()) {
                inFlight.set(false);
                return Probe.skipped(channel, key, config, "no quota room (rpm)");
            }
            return new Probe(channel, key, config, lease.get(), () -> inFlight.set(false), modelsMissing);
        }
    }

    private final Clock clock;
    private final ProbeLeases leases;
    private final Instant start;
    /** The channels whose provider answered 404 to GET /models: their recovery probes are chats. */
    private final Set<String> withoutModels = ConcurrentHashMap.newKeySet();
    /** Replaced as a whole by {@link #reload}. */
    private volatile List<Slot> slots = List.of();

    public ProbeSchedule(Collection<Channel> channels, Clock clock) {
        this(channels, clock, ProbeLeases.ALONE);
    }

    /** @param leases which channels this instance probes, of those sharing a Redis */
    public ProbeSchedule(Collection<Channel> channels, Clock clock, ProbeLeases leases) {
        this.clock = clock;
        this.leases = leases;
        this.start = clock.instant();
        reload(channels);
    }

    /**
     * The channels and keys of a reloaded keypool.yaml: keys added are probed from now on with their channel's probe
     * settings, keys removed are probed no more, keys that stay keep their last probe time.
     */
    public synchronized void reload(Collection<Channel> channels) {
        Map<String, Slot> before = new HashMap<>();
        slots.forEach(slot -> before.put(slot.id(), slot));
        List<Slot> next = new ArrayList<>();
        for (Channel channel : channels) {
            List<ApiKey> keys = channel.pool().keys();
            for (int i = 0; i < keys.size(); i++) {
                next.add(new Slot(channel, keys.get(i), i, before.get(channel.name() + "/" + keys.get(i).fingerprint())));
            }
        }
        slots = List.copyOf(next);
    }

    /** The probes due now, each in flight from now (keys with one in flight already wait for their next slot). */
    public List<Probe> due() {
        Instant now = clock.instant();
        List<Probe> due = new ArrayList<>();
        List<Slot> all = slots;
        Set<String> held = held(all);
        for (Slot slot : all) {
            if (!held.contains(slot.channel.name())) {
                continue;
            }
            Duration period = slot.period();
            Probe probe = null;
            if (!period.isZero() && !slot.inFlight.get() && !now.isBefore(slot.nextSlot(period))) {
                probe = slot.start(now);
            } else if (period.isZero() && !slot.inFlight.get() && slot.recoveryDue(now)) {
                probe = slot.startRecovery(now);
            }
            if (probe != null && probe.sendable()) {
                due.add(probe);
            }
        }
        return due;
    }

    /** The cold-start probe: every key of the channels with a {@code probe} block, once, now. */
    public List<Probe> coldStart() {
        Instant now = clock.instant();
        List<Slot> all = slots;
        Set<String> held = held(all);
        return all.stream().filter(slot -> slot.scheduled && held.contains(slot.channel.name()))
                .map(slot -> slot.start(now)).filter(Probe::sendable).toList();
    }

    private Set<String> held(List<Slot> all) {
        return leases.held(all.stream().map(slot -> slot.channel.name()).distinct().toList());
    }

    /**
     * Every key of every channel, now (POST /admin/probe), those without a {@code probe} block with a models probe;
     * the list includes the probes that cannot go out, as skipped.
     */
    public List<Probe> all() {
        Instant now = clock.instant();
        return slots.stream().map(slot -> slot.start(now)).toList();
    }

    /** Whether any channel is probed on a schedule. */
    public boolean scheduled() {
        return slots.stream().anyMatch(slot -> slot.scheduled);
    }
}
