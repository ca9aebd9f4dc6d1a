package dev.keypool.fault;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.DoubleSupplier;
import java.util.function.Supplier;

import com.fasterxml.jackson.databind.JsonNode;
import dev.keypool.config.Durations;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The faults injected by an operator (design §9), in the order they were added. Each ends by itself at
 * {@code addedAt + duration} by the clock, or when removed; adding and ending are each one WARN line. With other
 * instances ({@link FaultPeers}), a fault added or removed through any of them is added or removed on every one.
 * Thread-safe.
 */
public final class Faults {

    private static final Logger LOG = LoggerFactory.getLogger(Faults.class);

    /** The problems of a rejected fault request, each naming its field. */
    public static final class InvalidFault extends RuntimeException {

        private final List<String> problems;

        InvalidFault(List<String> problems) {
            super("Invalid fault: " + String.join("; ", problems), null, false, false);
            this.problems = List.copyOf(problems);
        }

        public List<String> problems() {
            return problems;
        }
    }

    private final Supplier<Map<String, Set<String>>> keysByChannel;
    private final Clock clock;
    private final DoubleSupplier random;
    private final FaultPeers peers;
    private final AtomicLong ids = new AtomicLong();
    /** Guarded by this. */
    private final Map<String, Fault> active = new LinkedHashMap<>();

    /**
     * @param keysByChannel every channel's key fingerprints now (a reload changes them), to check what a fault names
     * @param random        draws in [0, 1) that decide whether a call with a fault of rate below 1 suffers it
     */
    public Faults(Supplier<Map<String, Set<String>>> keysByChannel, Clock clock, DoubleSupplier random) {
        this(keysByChannel, clock, random, FaultPeers.ALONE);
    }

    /** @param peers the other instances the faults act on */
    public Faults(Supplier<Map<String, Set<String>>> keysByChannel, Clock clock, DoubleSupplier random, FaultPeers peers) {
        this.keysByChannel = keysByChannel;
        this.clock = clock;
        this.random = random;
        this.peers = peers;
        peers.attach(this);
    }

    /**
     * Adds the fault a {@code POST /admin/faults} body describes; it is in force at once.
     *
     * @throws InvalidFault listing every problem of the body
     */
    public Fault add(JsonNode body) {
        FaultRequest request = FaultRequest.parse(body, keysByChannel.get());
        String id = peers.nextId().orElseGet(() -> "fault-" + ids.incrementAndGet());
        Fault fault = new Fault(id, request.channel(), request.key(), request.kind(),
                request.status(), request.latencyMs(), request.rate(), request.duration(), clock.instant());
        synchronized (this) {
            active.put(fault.id(), fault);
        }
        LOG.warn("Fault {} injected: {}", fault.id(), fault.describe());
        peers.added(fault);
        return fault;
    }

    /**
     * A fault another instance added (or that it holds when this one connects): in force here too until it ends. One
     * already known, or over, changes nothing.
     */
    public void heard(Fault fault) {
        if (!clock.instant().isBefore(fault.endsAt())) {
            return;
        }
        synchronized (this) {
            if (active.putIfAbsent(fault.id(), fault) != null) {
                return;
            }
        }
        LOG.warn("Fault {} injected on another instance: {}", fault.id(), fault.describe());
    }

    /** A fault another instance removed before its time. */
    public void heardRemoved(String id) {
        Fault removed;
        synchronized (this) {
            removed = active.remove(id);
        }
        if (removed != null) {
            LOG.warn("Fault {} ended: removed on another instance ({})", removed.id(), removed.describe());
        }
    }

    /** The faults in force now, oldest first. */
    public List<Fault> active() {
        expire();
        synchronized (this) {
            return List.copyOf(active.values());
        }
    }

    /** Whether any fault is in force (or over and not yet ended): cheap, without a copy. */
    public synchronized boolean inForce() {
        return !active.isEmpty();
    }

    /** Ends a fault before its time; empty when no fault in force has that id. */
    public Optional<Fault> remove(String id) {
        expire();
        Fault removed;
        synchronized (this) {
            removed = active.remove(id);
        }
        if (removed != null) {
            LOG.warn("Fault {} ended: removed by operator after {} ({})", removed.id(),
                    Durations.format(Duration.between(removed.addedAt(), clock.instant())), removed.describe());
            peers.removed(removed);
        }
        return Optional.ofNullable(removed);
    }

    /** Ends the faults whose duration is over, one WARN line each. */
    public void expire() {
        Instant now = clock.instant();
        List<Fault> ended = new ArrayList<>();
        synchronized (this) {
            if (active.isEmpty()) {
                return;
            }
            active.values().removeIf(fault -> {
                boolean over = !now.isBefore(fault.endsAt());
                if (over) {
                    ended.add(fault);
                }
                return over;
            });
        }
        ended.forEach(fault -> LOG.warn("Fault {} ended: its {} are over ({})", fault.id(),
                Durations.format(fault.duration()), fault.describe()));
    }

    /**
     * The fault a call of this channel on this key suffers now, if any: the oldest fault in force that covers it,
     * and whose rate lets it strike this call.
     */
    public Optional<Fault> strike(String channel, String fingerprint) {
        List<Fault> covering;
        synchronized (this) {
            if (active.isEmpty()) {
                return Optional.empty();
            }
            covering = active.values().stream().filter(f -> f.covers(channel, fingerprint)).toList();
        }
        Instant now = clock.instant();
        for (Fault fault : covering) {
            if (now.isBefore(fault.endsAt()) && (fault.rate() >= 1.0 || random.getAsDouble() < fault.rate())) {
                return Optional.of(fault);
            }
        }
        return Optional.empty();
    }
}
