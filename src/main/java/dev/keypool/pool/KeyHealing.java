package dev.keypool.pool;

import java.time.Duration;
import java.time.Instant;

/**
 * How a pool's keys come back by themselves (design §3 cooling, design §8 recovery): how long a 429 without
 * Retry-After cools a key ({@link Cooling}, doubling for 429s in a row), and, where the channel's {@link Recovery}
 * is on, when a DISABLED key is probed, and the degraded weight of a key that came back or fails too often. Every change
 * is one log line and one event (KeyTransitions). A successful call on a key that is neither recovering nor failing
 * reads two volatile fields here and writes nothing.
 */
public final class KeyHealing {

    private final PoolKeys keys;
    private final KeyTransitions transitions;
    private volatile PoolSettings settings;

    KeyHealing(PoolSettings settings, PoolKeys keys, KeyTransitions transitions) {
        this.settings = settings;
        this.keys = keys;
        this.transitions = transitions;
    }

    /** A reloaded keypool.yaml's cooling and recovery apply from now on. */
    void reloaded(PoolSettings reloaded) {
        settings = reloaded;
    }

    /** Whether DISABLED keys of this pool heal by themselves ({@code recovery}, and no {@code probe} block). */
    public boolean recovers() {
        return settings.recovery().enabled();
    }

    /** How long a 429 without Retry-After at {@code now} cools the key. */
    Duration coolingTime(ApiKey key, Instant now) {
        PoolSettings current = settings;
        return key.coolingStreak().next(current.cooling(), now, current.jitter().getAsDouble());
    }

    /** A call on the key succeeded. */
    void succeeded(ApiKey key) {
        key.coolingStreak().succeeded();
        if (!recovers()) {
            return;
        }
        KeyRecovery recovery = key.recovery();
        if (recovery.degradedUntil != null && recovery.cleanCalls.incrementAndGet() >= Recovery.CLEAN_CALLS) {
            endDegraded(key, recovery, Recovery.CLEAN_CALLS + " calls without error");
        }
        if (recovery.failing) {
            // a success only lowers the rate: a key that was not failing is not now, and its call takes no lock here
            checkErrorRate(key, recovery);
        }
    }

    /** A call on the key failed (5xx, timeout, connection error, refused credentials). */
    void failed(ApiKey key) {
        if (!recovers()) {
            return;
        }
        KeyRecovery recovery = key.recovery();
        if (recovery.degradedUntil != null) {
            recovery.cleanCalls.set(0);
        }
        checkErrorRate(key, recovery);
    }

    /**
     * The key is being disabled by failures in a row or by a 402 ({@code refusedCredentials} false), or by a 401/403:
     * its first recovery probe is planned, unless one is planned already.
     */
    void disabled(ApiKey key, boolean refusedCredentials) {
        KeyRecovery recovery = key.recovery();
        Recovery plan = settings.recovery();
        Duration wait = refusedCredentials ? plan.maxInterval() : plan.firstProbe();
        synchronized (recovery) {
            recovery.degradedUntil = null;
            if (recovery.nextProbe == null) {
                recovery.refusedCredentials = refusedCredentials;
                recovery.waiting = wait;
                recovery.nextProbe = settings.clock().instant().plus(wait);
            }
        }
    }

    /**
     * When the key's next recovery probe is due: null when it is not DISABLED, was disabled by an operator, or the
     * pool does not recover keys. {@code spread} in [0, 1) (the key's place among the channel's keys) puts it up to
     * half its wait later, so that keys disabled together are not probed together.
     */
    public Instant probeDue(ApiKey key, double spread) {
        ApiKey owned = keys.owned(key);
        if (!recovers() || transitions.refresh(owned).state() != KeyState.DISABLED
                || transitions.disabledByOperator(owned.fingerprint())) {
            return null;
        }
        KeyRecovery recovery = owned.recovery();
        if (recovery.nextProbe == null) {
            // disabled before this pool recovered keys (a reload turned recovery on): from now
            disabled(owned, false);
        }
        Instant next = recovery.nextProbe;
        Duration waiting = recovery.waiting;
        return next == null || waiting == null ? null : next.plusMillis((long) (waiting.toMillis() * spread / 2));
    }

    /** A recovery probe of the DISABLED key failed ({@code cause} as the log names it): the next one waits longer. */
    public void probeFailed(ApiKey key, String cause) {
        ApiKey owned = keys.owned(key);
        if (!recovers() || owned.storedState() != KeyState.DISABLED) {
            return;
        }
        KeyRecovery recovery = owned.recovery();
        Recovery plan = settings.recovery();
        Duration wait;
        synchronized (recovery) {
            Duration doubled = recovery.waiting == null ? plan.firstProbe() : recovery.waiting.multipliedBy(2);
            wait = recovery.refusedCredentials || doubled.compareTo(plan.maxInterval()) > 0 ? plan.maxInterval() : doubled;
            recovery.waiting = wait;
            recovery.nextProbe = settings.clock().instant().plus(wait);
        }
        transitions.announce(owned, KeyState.DISABLED, KeyState.DISABLED,
                "recovery probe failed (" + owned.redact(cause) + "), next in " + KeyTransitions.shortly(wait));
    }

    /**
     * A probe brought the DISABLED key back: it runs degraded, at {@link Recovery#DEGRADED_FACTOR} of its weight, for
     * {@code degradedFor} or until {@link Recovery#CLEAN_CALLS} calls without error.
     *
     * @return what the line of its return adds: " (degraded: 30 % of its weight for 5m or 20 calls without error)"
     */
    String backFromProbe(ApiKey key) {
        Recovery plan = settings.recovery();
        if (!plan.enabled() || plan.degradedFor().isZero()) {
            return "";
        }
        KeyRecovery recovery = key.recovery();
        recovery.cleanCalls.set(0);
        recovery.degradedUntil = settings.clock().instant().plus(plan.degradedFor());
        return " (degraded: " + Math.round(Recovery.DEGRADED_FACTOR * 100) + " % of its weight for "
                + KeyTransitions.shortly(plan.degradedFor()) + " or " + Recovery.CLEAN_CALLS + " calls without error)";
    }

    /** The factor of the key's weight now: {@link Recovery#DEGRADED_FACTOR} while recovering or failing, else 1. */
    double factor(ApiKey key, Instant now) {
        if (!recovers()) {
            return 1.0;
        }
        KeyRecovery recovery = key.recovery();
        Instant until = recovery.degradedUntil;
        if (until != null && !now.isBefore(until)) {
            endDegraded(key, recovery, "degraded for " + KeyTransitions.shortly(settings.recovery().degradedFor()));
            until = null;
        }
        if (recovery.failing) {
            // its failures may have left the window since its last call: a key taking few calls is not held back by them
            checkErrorRate(key, recovery);
        }
        return until != null || recovery.failing ? Recovery.DEGRADED_FACTOR : 1.0;
    }

    private void endDegraded(ApiKey key, KeyRecovery recovery, String why) {
        synchronized (recovery) {
            if (recovery.degradedUntil == null) {
                return;
            }
            recovery.degradedUntil = null;
        }
        transitions.announce(key, KeyState.ACTIVE, KeyState.ACTIVE, "recovered after " + why + ", full weight");
    }

    private void checkErrorRate(ApiKey key, KeyRecovery recovery) {
        double threshold = settings.degradedErrorRatePercent();
        boolean failing = key.counters().failingMoreThan(threshold, settings.degradedMinimumCalls());
        if (failing == recovery.failing) {
            return;
        }
        synchronized (recovery) {
            if (failing == recovery.failing) {
                return;
            }
            recovery.failing = failing;
        }
        KeyState state = key.storedState();
        String percent = KeyTransitions.percent(threshold);
        transitions.announce(key, state, state, failing
                ? "failing more than " + percent + " of its calls of the last 60s: degraded, "
                        + Math.round(Recovery.DEGRADED_FACTOR * 100) + " % of its weight"
                : "no longer failing more than " + percent + " of its calls of the last 60s");
    }
}
