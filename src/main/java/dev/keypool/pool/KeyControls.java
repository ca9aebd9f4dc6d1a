package dev.keypool.pool;

import java.time.Duration;
import java.time.Instant;

import dev.keypool.quota.QuotaLimits;

/**
 * Changes to a pool's keys from outside the request path: an operator's (design §9: enable, disable, drain, new
 * weight and limits) and another gateway instance's (design §11). Each is logged and heard by the pool's listener.
 * Every method throws {@link IllegalArgumentException} for a fingerprint no key of this channel has, except
 * {@link #applyShared}, which ignores it.
 */
public final class KeyControls {

    private final PoolSettings settings;
    private final PoolKeys keys;
    private final KeyTransitions transitions;

    KeyControls(PoolSettings settings, PoolKeys keys, KeyTransitions transitions) {
        this.settings = settings;
        this.keys = keys;
        this.transitions = transitions;
    }

    /** Back to ACTIVE with a clean failure streak, whatever the state was. */
    public void enable(String fingerprint) {
        ApiKey key = keys.require(fingerprint);
        key.counters().resetConsecutiveFailures();
        transitions.markDisabledByOperator(fingerprint, false);
        KeyState before = key.storedState();
        boolean wasDraining = key.drain(false);
        if (transitions.transition(key, current -> KeyAvailability.ACTIVE,
                after -> "enabled by operator, ACTIVE" + transitions.warmingUp()) == KeyAvailability.ACTIVE
                && before == KeyState.ACTIVE && wasDraining) {
            transitions.announce(key, before, KeyState.ACTIVE, "enabled by operator, ACTIVE (no longer draining)");
        }
    }

    /** Out of rotation until enabled again; a successful probe does not bring it back. */
    public void disable(String fingerprint) {
        ApiKey key = keys.require(fingerprint);
        transitions.markDisabledByOperator(fingerprint, true);
        transitions.transition(key, current -> KeyAvailability.DISABLED, after -> "disabled by operator");
    }

    /** No new calls on this key, while those in flight finish (design §9 drain); {@link #enable} ends it. */
    public void drain(String fingerprint) {
        ApiKey key = keys.require(fingerprint);
        if (key.drain(true)) {
            KeyState state = transitions.refresh(key).state();
            transitions.announce(key, state, state, "draining by operator: no new requests, " + key.inFlight() + " in flight finish");
        }
    }

    /**
     * A new weight and new limits, live; the key's state, counters and quota use stay (a window that is newly limited
     * starts empty). Says what changed in one line; nothing when nothing changed.
     *
     * @throws IllegalArgumentException also when the weight is below 1
     */
    public void tune(String fingerprint, int weight, QuotaLimits limits) {
        ApiKey key = keys.require(fingerprint);
        String changes = KeyTuning.describe(key.weight(), key.limits(), weight, limits);
        if (changes.isEmpty()) {
            return;
        }
        key.retune(key.label(), weight, limits);
        keys.quota(key).changeLimits(limits);
        KeyState state = transitions.refresh(key).state();
        transitions.announce(key, state, state, "changed by operator: " + changes);
    }

    /**
     * The key enters service now though it was never out of it (a key added to a running gateway): it ramps up over
     * the channel's warmup as a key back from DISABLED does.
     */
    public void warmUp(String fingerprint) {
        keys.ramp(keys.require(fingerprint)).enteredService(settings.clock().instant());
    }

    /**
     * A key's state as another gateway instance shared it (design §11): COOLING until {@code coolingUntil} (a deadline
     * is only ever extended, and one already past changes nothing), DISABLED ({@code byOperator}: only an operator
     * brings it back), ACTIVE again after being DISABLED (a COOLING key cools on), and whether it drains.
     */
    public void applyShared(String fingerprint, KeyState state, Instant coolingUntil, boolean draining, boolean byOperator) {
        ApiKey key = keys.get(fingerprint);
        if (key == null) {
            return;
        }
        if (key.drain(draining)) {
            KeyState now = transitions.refresh(key).state();
            transitions.announce(key, now, now, draining ? "draining on another instance" : "no longer draining (another instance)");
        }
        switch (state) {
            case COOLING -> {
                Instant now = settings.clock().instant();
                if (coolingUntil != null && coolingUntil.isAfter(now)) {
                    transitions.transition(key, current -> current.coolUntil(coolingUntil), after -> "cooling "
                            + Duration.between(now, after.coolingUntil()).toSeconds() + "s (429 on another instance)");
                }
            }
            case DISABLED -> {
                if (byOperator) {
                    transitions.markDisabledByOperator(fingerprint, true);
                }
                transitions.transition(key, current -> KeyAvailability.DISABLED, after -> byOperator
                        ? "disabled by operator (on another instance)" : "disabled on another instance");
            }
            case ACTIVE -> {
                transitions.markDisabledByOperator(fingerprint, false);
                transitions.transition(key, current -> current.state() == KeyState.DISABLED ? KeyAvailability.ACTIVE : current,
                        after -> "enabled on another instance, ACTIVE" + transitions.warmingUp());
            }
        }
    }
}
