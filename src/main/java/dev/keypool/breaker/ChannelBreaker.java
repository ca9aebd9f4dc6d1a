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
import io.github.resilience4j.circuitbreaker.CircuitBreaker;

/**
 * The breaker of one channel (SPEC §3), and the only authority on its state. resilience4j cannot express our
 * rules (an ACTIVE-key gate before HALF_OPEN, "k of n" probes with early reopen, several OR-ed triggers), so this
 * class decides every transition from the outcomes it is told and drives the r4j instance the Camel EIP
 * consults to match.
 *
 * <p>Thread-safe: request threads report concurrently; every transition happens under the instance lock, so it
 * happens, and is logged, exactly once. What is outside this class is called without that lock: {@code hasActiveKey}
 * (the key pool may evaluate key states and tell its own listeners) and the state listener, which hears the
 * transitions in order after they are made.
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
    private final Resilience4jGate gate;
    private final BreakerLog log;
    private final StateListener listener;
    /** Held while telling the listener, so that it hears the transitions one at a time and in order. */
    private final Object publishing = new Object();

    // guarded by this
    private BreakerState state = BreakerState.CLOSED;
    private Instant nextAttemptAt;          // set while OPEN, null while forced open
    private boolean forcedOpen;             // operator's OPEN holds until the operator closes it
    private String trippedBy;
    private HalfOpenTrial trial;            // set while HALF_OPEN
    private final Deque<BreakerStateChange> unpublished = new ArrayDeque<>();

    public ChannelBreaker(String channel, BreakerSettings settings, BooleanSupplier hasActiveKey, Clock clock,
                          StateListener listener) {
        this.channel = Objects.requireNonNull(channel, "channel");
        this.settings = Objects.requireNonNull(settings, "settings");
        this.hasActiveKey = Objects.requireNonNull(hasActiveKey, "hasActiveKey");
        this.clock = Objects.requireNonNull(clock, "clock");
        this.detector = new TripDetector(settings, clock);
        this.gate = new Resilience4jGate(channel + "-breaker", settings.halfOpenRequests(), clock);
        this.log = new BreakerLog(channel);
        this.listener = Objects.requireNonNull(listener, "listener");
    }

    /** The r4j instance to bind for the channel's circuitBreaker EIP; it follows the state decided here. */
    public CircuitBreaker circuitBreaker() {
        return gate.circuitBreaker();
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

    /** The visit was served (client errors passed back count too). */
    public void onSuccess(Duration upstreamLatency) {
        synchronized (this) {
            switch (state) {
                case CLOSED -> detector.visit(false, upstreamLatency.toMillis()).ifPresent(this::trip);
                case HALF_OPEN -> probeSucceeded();
                case OPEN -> { } // a straggler admitted before the trip: the breaker already judged the channel
            }
        }
        publish();
    }

    /** Every attempt of the visit failed (5xx, timeouts, connection errors). */
    public void onFailure(Duration upstreamLatency) {
        synchronized (this) {
            switch (state) {
                case CLOSED -> detector.visit(true, upstreamLatency.toMillis()).ifPresent(this::trip);
                case HALF_OPEN -> probeFailed();
                case OPEN -> { }
            }
        }
        publish();
    }

    /** The visit found no usable key; a probe that finds none has failed as a probe. */
    public void onPoolExhausted() {
        synchronized (this) {
            switch (state) {
                case CLOSED -> detector.poolExhausted().ifPresent(this::trip);
                case HALF_OPEN -> probeFailed();
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
                transition(BreakerState.HALF_OPEN, log.halfOpen(trial));
            } else {
                // probing a channel without an ACTIVE key can only fail; look again later
                nextAttemptAt = clock.instant().plus(settings.reopenDelay());
                log.noActiveKey(settings.reopenDelay());
            }
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

    private void probeSucceeded() {
        HalfOpenTrial.Verdict verdict = trial.success();
        log.probeSucceeded(trial);
        if (verdict == HalfOpenTrial.Verdict.PASSED) {
            close(log.halfOpenPassed(trial));
        }
    }

    private void probeFailed() {
        HalfOpenTrial.Verdict verdict = trial.failure();
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
        forcedOpen = false;
        trippedBy = null;
        nextAttemptAt = null;
        trial = null;
        detector.reset();
        transition(BreakerState.CLOSED, line);
    }

    /**
     * The one place the state changes, as resilience4j's CircuitBreakerStateMachine does it: checked against the
     * allowed moves, mirrored on the r4j gate, logged once, and queued to be published once the lock is released.
     */
    private void transition(BreakerState target, String line) {
        BreakerState from = state;
        if (!ALLOWED.get(from).contains(target)) {
            throw new IllegalStateException("Channel [" + channel + "] breaker cannot move from " + from + " to " + target);
        }
        state = target;
        gate.moveTo(target);
        log.transition(target, line);
        unpublished.add(new BreakerStateChange(clock.instant(), channel, from, target, line));
    }

    /**
     * Tells the listener of the transitions made so far, in the order they were made, without holding the state
     * lock: a listener may read the breaker (or block) without stalling the requests that report to it.
     */
    private void publish() {
        synchronized (publishing) {
            while (true) {
                BreakerStateChange next;
                synchronized (this) {
                    next = unpublished.poll();
                }
                if (next == null) {
                    return;
                }
                listener.stateChanged(next);
            }
        }
    }
}
