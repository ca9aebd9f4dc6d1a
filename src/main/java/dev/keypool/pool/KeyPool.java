package dev.keypool.pool;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

import dev.keypool.quota.KeyQuota;

/**
 * The keys of one channel, in parts with one job each: {@link #selection()} hands out usable keys with quota room,
 * {@link #leases()} settles what a call reserved, {@link #outcomes()} turns the outcome of each upstream call into
 * counters and state changes, {@link #capacity()} says when keys have room, and {@link #controls()} takes an
 * operator's or another instance's changes. Thread-safe; every state change of a key is a single atomic transition
 * (KeyTransitions), and its log line is written only by the caller that made it. A reloaded keypool.yaml changes the
 * keys in place ({@link #reload}).
 */
public final class KeyPool {

    private final PoolKeys keys;
    private final KeyTransitions transitions;
    private final KeySelection selection;
    private final KeyLeases leases;
    private final KeyOutcomes outcomes;
    private final KeyCapacity capacity;
    private final KeyControls controls;
    private final KeyHealing healing;
    /** As made, then as the last reload left them. */
    private volatile PoolSettings settings;

    /**
     * @param settings how the pool behaves ({@link PoolSettings#builder})
     * @param keys     in configuration order, distinct secrets; a key's sliding window runs on the clock of the first
     *                 pool it joins
     */
    public KeyPool(PoolSettings settings, List<ApiKey> keys) {
        this.settings = Objects.requireNonNull(settings, "settings");
        this.keys = new PoolKeys(settings, keys);
        this.transitions = new KeyTransitions(settings, this.keys);
        this.leases = new KeyLeases(this.keys);
        this.healing = new KeyHealing(settings, this.keys, transitions);
        this.selection = new KeySelection(settings, this.keys, transitions, leases, healing);
        this.outcomes = new KeyOutcomes(settings, this.keys, transitions, healing);
        this.capacity = new KeyCapacity(settings, this.keys, transitions);
        this.controls = new KeyControls(settings, this.keys, transitions);
    }

    /** A key handed out for one call, and what the call reserved of its quota (null for a key without limits). */
    public record Lease(ApiKey key, KeyQuota.Reservation reservation) {
    }

    public KeySelection selection() {
        return selection;
    }

    public KeyLeases leases() {
        return leases;
    }

    public KeyOutcomes outcomes() {
        return outcomes;
    }

    public KeyCapacity capacity() {
        return capacity;
    }

    public KeyControls controls() {
        return controls;
    }

    /** How the keys come back by themselves: cooling times, recovery probes, degraded weights. */
    public KeyHealing healing() {
        return healing;
    }

    public String channel() {
        return settings.channel();
    }

    /** The keys in configuration order. */
    public List<ApiKey> keys() {
        return keys.all();
    }

    public Optional<ApiKey> find(String fingerprint) {
        return keys.find(fingerprint);
    }

    /** The key's state now: a COOLING key whose deadline has been reached becomes ACTIVE here. */
    public KeyState stateOf(ApiKey key) {
        return transitions.refresh(keys.owned(key)).state();
    }

    /** The key's cooling deadline now; empty unless it is COOLING. */
    public Optional<Instant> coolingUntil(ApiKey key) {
        return Optional.ofNullable(transitions.refresh(keys.owned(key)).coolingUntil());
    }

    /** The quota of one of this pool's keys. */
    public KeyQuota quotaOf(ApiKey key) {
        return keys.quota(keys.owned(key));
    }

    /**
     * The key's health now: unhealthy while COOLING or DISABLED; degraded while warming up, rolling out or retiring,
     * at 90 % or more of a quota window, failing more than the channel's error rate threshold of its calls of
     * the last 60 s, or back from DISABLED by a recovery probe for a while (KeyHealing).
     */
    public KeyHealth healthOf(ApiKey key) {
        if (stateOf(key) != KeyState.ACTIVE) {
            return KeyHealth.UNHEALTHY;
        }
        KeyStats stats = key.stats();
        boolean failing = stats.windowCalls() > 0
                && 100.0 * stats.windowFailures() / stats.windowCalls() > settings.degradedErrorRatePercent();
        Instant now = settings.clock().instant();
        return keys.quota(key).degraded() || keys.ramp(key).ramping(now) || failing || healing.factor(key, now) < 1
                ? KeyHealth.DEGRADED : KeyHealth.HEALTHY;
    }

    /** Whether the key was configured {@code retiring: true}. */
    public boolean retiring(ApiKey key) {
        return keys.ramp(keys.owned(key)).retiring();
    }

    /** When the key's warm-up ends; empty when it is not warming up. */
    public Optional<Instant> warmingUntil(ApiKey key) {
        return Optional.ofNullable(keys.ramp(keys.owned(key)).warmingUntil(settings.clock().instant()));
    }

    /** When the key's rollout ends, or ended; empty for a key without {@code rollout}. */
    public Optional<Instant> rolloutUntil(ApiKey key) {
        return Optional.ofNullable(keys.ramp(keys.owned(key)).rolloutUntil());
    }

    /** Whether an operator disabled the key (then only an operator enables it again). */
    public boolean disabledByOperator(ApiKey key) {
        return transitions.disabledByOperator(keys.owned(key).fingerprint());
    }

    /** What a {@link #reload} did, by fingerprint. */
    public record Reload(List<String> kept, List<String> added, List<String> removed) {
    }

    /**
     * The channel's keys and settings as a reloaded keypool.yaml has them. A key whose fingerprint stays keeps its
     * state, counters and quota use (its label, weight, limits, tenant and rollout/retiring plan are the new ones); a
     * new key joins ACTIVE and warms up; a removed key takes no new calls and is let go once its calls in flight are
     * recorded (they still find it here).
     */
    public synchronized Reload reload(List<ApiKey> configured, SelectionStrategy newStrategy, Duration newCooldown, int newDisableAfter) {
        return reload(configured, newStrategy, Cooling.fixed(newCooldown), newDisableAfter, settings.recovery());
    }

    /** {@link #reload} with the cooling and recovery of the reloaded file. */
    public synchronized Reload reload(List<ApiKey> configured, SelectionStrategy newStrategy, Cooling newCooling,
                                      int newDisableAfter, Recovery newRecovery) {
        PoolSettings reloaded = settings.reloaded(newStrategy, newCooling, newDisableAfter, newRecovery);
        PoolKeys.Replaced replaced = keys.replace(configured);
        settings = reloaded;
        selection.reloaded(reloaded);
        outcomes.reloaded(reloaded);
        healing.reloaded(reloaded);
        for (String fingerprint : replaced.added()) {
            ApiKey added = keys.get(fingerprint);
            // a key added to a running gateway enters service: it warms up (design §8)
            keys.ramp(added).enteredService(settings.clock().instant());
            transitions.announce(added, KeyState.ACTIVE, KeyState.ACTIVE, "added by reload, ACTIVE" + transitions.warmingUp());
        }
        for (String fingerprint : replaced.removed()) {
            ApiKey old = keys.removed(fingerprint);
            KeyState state = old.storedState();
            transitions.announce(old, state, state, "removed by reload, draining: " + old.inFlight() + " in flight finish");
        }
        keys.forgetIdleRemovedKeys();
        return new Reload(replaced.kept(), replaced.added(), replaced.removed());
    }

    /**
     * A key that joins the running pool without a reload: an operator's (design §9, keys at runtime), which warms up
     * over the channel's warmup as a key a reload adds ({@code entersService}), or one kept beside keypool.yaml that is
     * in service already at startup. A key this pool had removed while calls were still in flight on it comes back
     * with its state and counters.
     *
     * @return false, and nothing changed, when the pool has a key with that fingerprint already
     */
    public synchronized boolean add(ApiKey key, boolean entersService) {
        ApiKey joined = keys.add(key);
        if (joined == null) {
            return false;
        }
        if (entersService) {
            keys.ramp(joined).enteredService(settings.clock().instant());
        } else {
            keys.ramp(joined);
        }
        KeyState state = stateOf(joined);
        transitions.announce(joined, state, state, "added by operator, " + state
                + (entersService ? transitions.warmingUp() : ""));
        return true;
    }

    /**
     * An operator's removal: the key takes no new calls and is let go once its calls in flight are recorded (they
     * still find it here), as a key a reload removes.
     *
     * @return false when the pool has no key with that fingerprint
     */
    public synchronized boolean remove(String fingerprint) {
        ApiKey key = keys.remove(fingerprint);
        if (key == null) {
            return false;
        }
        KeyState state = key.storedState();
        transitions.announce(key, state, state, "removed by operator, draining: " + key.inFlight() + " in flight finish");
        keys.forgetIdleRemovedKeys();
        return true;
    }

    @Override
    public String toString() {
        return "KeyPool[" + channel() + ", " + keys.all().size() + " keys, " + selection.strategy() + "]";
    }
}
