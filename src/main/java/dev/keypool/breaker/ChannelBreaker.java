package dev.keypool.breaker;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.function.BooleanSupplier;

import dev.keypool.events.StateListener;
import dev.keypool.window.SlidingWindow;

/**
 * The breaker of one channel (design §3), and the only authority on its state: it decides every transition from the
 * outcomes it is told, and it alone admits a visit ({@link #admits()}, asked once per visit by the channel route's
 * circuitBreaker step). resilience4j cannot express our rules (an ACTIVE-key gate before HALF_OPEN, "k of n" probes
 * with early reopen, several OR-ed triggers), and the one thing it could still do here, counting half-open permits,
 * is a counter under the lock this class holds anyway (docs/decisions.md, "One breaker authority per channel").
 *
 * <p>With other gateway instances ({@link BreakerPeers}, design §11) each decision made here is announced to them, the
 * decisions they announce are taken over by {@link #follow} without being announced again, and a half-open period's
 * probes are taken from a budget all instances share ({@link #admits()}) and counted together.
 *
 * <p>Thread-safe: request threads report concurrently; every transition happens under the instance lock, so it
 * happens, and is logged, exactly once. What is outside this class is called without that lock: {@code hasActiveKey}
 * (the key pool may evaluate key states and tell its own listeners), the peers (they may ask Redis), and the state
 * listener, which hears the transitions in order after they are made.
 */
public final class ChannelBreaker {

    /**
     * The moves a breaker may make. OPEN to OPEN: an operator now holds a tripped breaker open; CLOSED to HALF_OPEN:
     * an operator puts a channel on probation.
     */
    private static final Map<BreakerState, Set<BreakerState>> ALLOWED = new EnumMap<>(Map.of(
            BreakerState.CLOSED, EnumSet.of(BreakerState.OPEN, BreakerState.HALF_OPEN),
            BreakerState.OPEN, EnumSet.of(BreakerState.HALF_OPEN, BreakerState.CLOSED, BreakerState.OPEN),
            BreakerState.HALF_OPEN, EnumSet.of(BreakerState.CLOSED, BreakerState.OPEN)));

    private final String channel;
    private final BreakerSettings settings;
    private final BooleanSupplier hasActiveKey;
    private final Clock clock;
    private final TripDetector detector;
    private final BreakerLog log;
    private final StateListener listener;
    private final BreakerPeers peers;
    /** Held while telling the listener, so that it hears the transitions one at a time and in order. */
    private final Object publishing = new Object();

    // guarded by this
    private BreakerState state = BreakerState.CLOSED;
    private Instant nextAttemptAt;          // set while OPEN, null while forced open
    private boolean forcedOpen;             // operator's OPEN holds until the operator closes it
    private String trippedBy;
    private HalfOpenTrial trial;            // set while HALF_OPEN
    private int probesOut;                  // probes admitted this half-open period whose outcome is not known yet
    private long version;                   // of the last decision, see BreakerSnapshot
    private long period;                    // the half-open period the probes count against, while HALF_OPEN
    private Instant changedAt;              // of the last decision
    private final Deque<Transition> unpublished = new ArrayDeque<>();

    /** A transition to tell the listener of, and, when decided here, the decision to announce to the peers. */
    private record Transition(BreakerStateChange change, BreakerSnapshot decision) { }

    /** The breaker of one instance alone. */
    public ChannelBreaker(String channel, BreakerSettings settings, BooleanSupplier hasActiveKey, Clock clock,
                          StateListener listener) {
        this(channel, settings, hasActiveKey, clock, listener, BreakerPeers.LOCAL);
    }

    public ChannelBreaker(String channel, BreakerSettings settings, BooleanSupplier hasActiveKey, Clock clock,
                          StateListener listener, BreakerPeers peers) {
        this.channel = Objects.requireNonNull(channel, "channel");
        this.settings = Objects.requireNonNull(settings, "settings");
        this.hasActiveKey = Objects.requireNonNull(hasActiveKey, "hasActiveKey");
        this.clock = Objects.requireNonNull(clock, "clock");
        this.detector = new TripDetector(settings, clock);
        this.log = new BreakerLog(channel);
        this.listener = Objects.requireNonNull(listener, "listener");
        this.peers = Objects.requireNonNull(peers, "peers");
        this.changedAt = clock.instant();
    }

    public String channel() {
        return channel;
    }

    public BreakerSettings settings() {
        return settings;
    }

    /**
     * Current state, first applying time: an OPEN breaker whose next attempt time has come turns HALF_OPEN if the
     * channel has an ACTIVE key, else stays OPEN and tries again after reopenDelay. Call it before each request.
     */
    public BreakerState state() {
        applyTime();
        publish();
        synchronized (this) {
            return state;
        }
    }

    /** When an OPEN breaker will next try HALF_OPEN; empty when not OPEN, or forced open by an operator. */
    public Optional<Instant> nextAttemptAt() {
        applyTime();
        publish();
        synchronized (this) {
            return Optional.ofNullable(state == BreakerState.OPEN ? nextAttemptAt : null);
        }
    }

    /**
     * Whether a request may visit the channel now: not when OPEN; when HALF_OPEN only as one of the
     * {@code halfOpenRequests} probes of the period (results and probes still out together), which the instances
     * sharing this breaker take from one budget too (a request that gets none finds the channel as good as OPEN).
     * An admitted visit ends with one of {@link #onSuccess}, {@link #onFailure}, {@link #onPoolExhausted} or
     * {@link #onNoOutcome}, which gives its probe back.
     */
    public boolean admits() {
        BreakerState now = state();
        if (now != BreakerState.HALF_OPEN) {
            return now == BreakerState.CLOSED;
        }
        long probing;
        synchronized (this) {
            if (state != BreakerState.HALF_OPEN) {
                return state == BreakerState.CLOSED;
            }
            if (trial.probes() + probesOut >= settings.halfOpenRequests()) {
                return false;
            }
            probesOut++;
            probing = period;
        }
        if (peers.takeProbe(channel, probing, settings.halfOpenRequests())) {
            return true;
        }
        synchronized (this) {
            returnProbe(probing);
        }
        return false;
    }

    /**
     * The admitted visit ended with nothing to say about the channel (its client left, its tenant's limits refused
     * it, the gateway's own quota held it back): a probe it held goes to another request.
     */
    public synchronized void onNoOutcome() {
        returnProbe(period);
    }

    /** The visit was served (client errors passed back count too). */
    public void onSuccess(Duration upstreamLatency) {
        Optional<BreakerPeers.ProbeTally> tally = sharedProbeResult(true);
        synchronized (this) {
            switch (state) {
                case CLOSED -> detector.visit(false, upstreamLatency.toMillis()).ifPresent(this::trip);
                case HALF_OPEN -> {
                    returnProbe(period);
                    probeSucceeded(tally);
                }
                case OPEN -> { } // a straggler admitted before the trip: the breaker already judged the channel
            }
        }
        publish();
    }

    /** Every attempt of the visit failed (5xx, timeouts, connection errors). */
    public void onFailure(Duration upstreamLatency) {
        Optional<BreakerPeers.ProbeTally> tally = sharedProbeResult(false);
        synchronized (this) {
            switch (state) {
                case CLOSED -> detector.visit(true, upstreamLatency.toMillis()).ifPresent(this::trip);
                case HALF_OPEN -> {
                    returnProbe(period);
                    probeFailed(tally);
                }
                case OPEN -> { }
            }
        }
        publish();
    }

    /** The visit found no usable key; a probe that finds none has failed as a probe. */
    public void onPoolExhausted() {
        Optional<BreakerPeers.ProbeTally> tally = sharedProbeResult(false);
        synchronized (this) {
            switch (state) {
                case CLOSED -> detector.poolExhausted().ifPresent(this::trip);
                case HALF_OPEN -> {
                    returnProbe(period);
                    probeFailed(tally);
                }
                case OPEN -> { }
            }
        }
        publish();
    }

    /** One failed attempt on a key, so that consecutive_fail can trip in the middle of a request. */
    public void onKeyFailure(String keyFingerprint, int consecutiveFailuresOfThatKey) {
        synchronized (this) {
            Optional<Trip> trip = detector.keyFailure(keyFingerprint, consecutiveFailuresOfThatKey);
            // only a CLOSED breaker trips; in HALF_OPEN the visit's own outcome is what counts as the probe result
            if (state == BreakerState.CLOSED) {
                trip.ifPresent(this::trip);
            }
        }
        publish();
    }

    /** Optional: a key served a request, so its failure streak is over (keeps maxKeyConsecutiveFailures current). */
    public synchronized void onKeySuccess(String keyFingerprint) {
        detector.keySuccess(keyFingerprint);
    }

    public BreakerFigures figures() {
        applyTime();
        publish();
        synchronized (this) {
            SlidingWindow.Snapshot errors = detector.errorSnapshot();
            boolean halfOpen = state == BreakerState.HALF_OPEN;
            return new BreakerFigures(state, errors.failureRatePercent(), errors.calls(),
                    detector.latencySnapshot().averageLatencyMs(), detector.maxKeyConsecutiveFailures(),
                    detector.poolExhaustedCount(), trippedBy, state == BreakerState.OPEN ? nextAttemptAt : null,
                    halfOpen ? trial.successes() : 0, halfOpen ? trial.probes() : 0);
        }
    }

    /**
     * Operator action: OPEN until {@link #forceClosed()}. Unlike a trip it does not recover by itself, since an
     * operator who takes a channel out of service expects it to stay out.
     */
    public void forceOpen(String reason) {
        synchronized (this) {
            if (forcedOpen) {
                return;
            }
            String why = reason == null || reason.isBlank() ? "no reason given" : reason.strip();
            forcedOpen = true;
            open("operator: " + why, null, log.forcedOpen(why));
        }
        publish();
    }

    /** Operator action: CLOSED with fresh windows, whatever the state was. */
    public void forceClosed() {
        synchronized (this) {
            if (state != BreakerState.CLOSED) {
                close(log.forcedClosed());
            }
        }
        publish();
    }

    /**
     * Operator action: HALF_OPEN now, whatever the state was (a forced OPEN included): the next
     * {@code halfOpenRequests} requests are probes, and they decide as after a recovery timeout.
     */
    public void forceHalfOpen() {
        synchronized (this) {
            if (state != BreakerState.HALF_OPEN) {
                forcedOpen = false;
                nextAttemptAt = null;
                trial = new HalfOpenTrial(settings.halfOpenRequests(), settings.halfOpenSuccess());
                transition(BreakerState.HALF_OPEN, log.forcedHalfOpen(trial));
            }
        }
        publish();
    }

    /** This breaker as the other instances need it to take it over. */
    public synchronized BreakerSnapshot snapshot() {
        return new BreakerSnapshot(channel, version, state, state == BreakerState.OPEN ? nextAttemptAt : null, forcedOpen,
                trippedBy, state == BreakerState.HALF_OPEN ? period : 0, changedAt);
    }

    /**
     * Takes over a decision another instance made about this channel, when it is newer than this breaker's
     * ({@link BreakerSnapshot#newerThan}); logged and told to the listener as any transition, not announced again.
     */
    public void follow(BreakerSnapshot decision) {
        synchronized (this) {
            if (!decision.channel().equals(channel) || !decision.newerThan(snapshot())) {
                return;
            }
            version = decision.version();
            changedAt = decision.at();
            String line = log.followed(decision);
            switch (decision.state()) {
                case OPEN -> {
                    boolean holdsNow = decision.forced() && !forcedOpen;
                    forcedOpen = decision.forced();
                    trippedBy = decision.trippedBy();
                    nextAttemptAt = decision.forced() ? null : decision.until();
                    trial = null;
                    if (state != BreakerState.OPEN || holdsNow) {
                        transition(BreakerState.OPEN, line, false);
                    }
                }
                case HALF_OPEN -> {
                    forcedOpen = false;
                    nextAttemptAt = null;
                    trial = new HalfOpenTrial(settings.halfOpenRequests(), settings.halfOpenSuccess());
                    if (state != BreakerState.HALF_OPEN) {
                        transition(BreakerState.HALF_OPEN, line, false);
                    }
                    period = decision.period();
                    probesOut = 0;   // a new trial starts with no probe out, as after a transition
                }
                case CLOSED -> {
                    if (state != BreakerState.CLOSED) {
                        close(line, false);
                    }
                }
            }
        }
        publish();
    }

    /** Whether the breaker is OPEN by an operator's hand (it then stays OPEN until the operator closes it). */
    public synchronized boolean forcedOpen() {
        return forcedOpen;
    }

    private void applyTime() {
        synchronized (this) {
            if (!recoveryDue()) {
                return;
            }
        }
        boolean active = hasActiveKey.getAsBoolean(); // outside the lock, see class comment
        synchronized (this) {
            if (!recoveryDue()) {
                return; // another thread got here first and already decided (and logged)
            }
            if (active) {
                trial = new HalfOpenTrial(settings.halfOpenRequests(), settings.halfOpenSuccess());
                nextAttemptAt = null;
                // not a decision: every instance that shares the OPEN one turns HALF_OPEN at the same time, by itself
                transition(BreakerState.HALF_OPEN, log.halfOpen(trial), false);
            } else {
                // probing a channel without an ACTIVE key can only fail; look again later
                nextAttemptAt = clock.instant().plus(settings.reopenDelay());
                log.noActiveKey(settings.reopenDelay());
            }
        }
    }

    /** A probe of half-open period {@code of} is no longer out; one of an earlier period was forgotten when it ended. */
    private void returnProbe(long of) {
        if (state == BreakerState.HALF_OPEN && of == period && probesOut > 0) {
            probesOut--;
        }
    }

    private boolean recoveryDue() {
        return state == BreakerState.OPEN && !forcedOpen && !clock.instant().isBefore(nextAttemptAt);
    }

    private void trip(Trip trip) {
        // the evidence that tripped it must not trip it again the moment it closes
        detector.reset();
        open(trip.trigger().configName(), clock.instant().plus(settings.recoveryTimeout()), log.tripped(trip));
    }

    /** A probe's result counted with the other instances' of the same period; empty when not probing or not shared. */
    private Optional<BreakerPeers.ProbeTally> sharedProbeResult(boolean success) {
        long probing;
        synchronized (this) {
            if (state != BreakerState.HALF_OPEN) {
                return Optional.empty();
            }
            probing = period;
        }
        return peers.recordProbe(channel, probing, success);
    }

    /** The period's tally of all instances, when it is this period's. */
    private Optional<BreakerPeers.ProbeTally> current(Optional<BreakerPeers.ProbeTally> tally) {
        return tally.filter(t -> t.period() == period);
    }

    private void probeSucceeded(Optional<BreakerPeers.ProbeTally> tally) {
        HalfOpenTrial.Verdict verdict = current(tally).map(t -> trial.counted(t.successes(), t.failures()))
                .orElseGet(trial::success);
        log.probeSucceeded(trial);
        if (verdict == HalfOpenTrial.Verdict.PASSED) {
            close(log.halfOpenPassed(trial));
        }
    }

    private void probeFailed(Optional<BreakerPeers.ProbeTally> tally) {
        HalfOpenTrial.Verdict verdict = current(tally).map(t -> trial.counted(t.successes(), t.failures()))
                .orElseGet(trial::failure);
        log.probeFailed(trial);
        if (verdict == HalfOpenTrial.Verdict.FAILED) {
            open(trippedBy, clock.instant().plus(settings.reopenDelay()), log.halfOpenFailed(settings.reopenDelay()));
        }
    }

    /** To OPEN, tripped by {@code why}, until {@code until} (null: until an operator closes it). */
    private void open(String why, Instant until, String line) {
        trippedBy = why;
        nextAttemptAt = until;
        trial = null;
        transition(BreakerState.OPEN, line);
    }

    /** To CLOSED with fresh windows. */
    private void close(String line) {
        close(line, true);
    }

    private void close(String line, boolean decidedHere) {
        forcedOpen = false;
        trippedBy = null;
        nextAttemptAt = null;
        trial = null;
        detector.reset();
        transition(BreakerState.CLOSED, line, decidedHere);
    }

    /**
     * The one place the state changes, as resilience4j's CircuitBreakerStateMachine does it: checked against the
     * allowed moves, logged once, and queued to be published once the lock is released.
     * A decision made here (not taken over from another instance, not a timed HALF_OPEN) gets a new version and is
     * queued to be announced to the peers too. Entering HALF_OPEN starts the probe period of the current version.
     */
    private void transition(BreakerState target, String line) {
        transition(target, line, true);
    }

    private void transition(BreakerState target, String line, boolean decidedHere) {
        BreakerState from = state;
        if (!ALLOWED.get(from).contains(target)) {
            throw new IllegalStateException("Channel [" + channel + "] breaker cannot move from " + from + " to " + target);
        }
        Instant now = clock.instant();
        state = target;
        if (decidedHere) {
            version = Math.max(version + 1, now.toEpochMilli());
            changedAt = now;
        }
        period = target == BreakerState.HALF_OPEN ? version : 0;
        probesOut = 0;
        log.transition(target, line);
        unpublished.add(new Transition(new BreakerStateChange(now, channel, from, target, line),
                decidedHere ? snapshot() : null));
    }

    /**
     * Tells the listener of the transitions made so far, in the order they were made, and the peers of the decisions
     * among them, without holding the state lock: a listener may read the breaker (or block) without stalling the
     * requests that report to it.
     */
    private void publish() {
        synchronized (publishing) {
            while (true) {
                Transition next;
                synchronized (this) {
                    next = unpublished.poll();
                }
                if (next == null) {
                    return;
                }
                if (next.decision() != null) {
                    peers.announce(next.decision());
                }
                listener.stateChanged(next.change());
            }
        }
    }
}
