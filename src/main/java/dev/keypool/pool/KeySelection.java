package dev.keypool.pool;

import java.time.Instant;
import java.util.HashSet;
import java.util.Optional;
import java.util.Set;
import java.util.function.LongSupplier;

import dev.keypool.quota.CompanionTake;
import dev.keypool.quota.KeyQuota;

/**
 * Which key of a pool takes the next call: a usable key with quota room, chosen by the channel's strategy by
 * effective weight (design §8), leased at once ({@link KeyLeases}).
 */
public final class KeySelection {

    private final PoolKeys keys;
    private final KeyTransitions transitions;
    private final KeyLeases leases;
    private final KeyHealing healing;
    private final PoolSettings settings;
    private volatile SelectionStrategy strategy;

    KeySelection(PoolSettings settings, PoolKeys keys, KeyTransitions transitions, KeyLeases leases, KeyHealing healing) {
        this.settings = settings;
        this.keys = keys;
        this.transitions = transitions;
        this.leases = leases;
        this.healing = healing;
        this.strategy = settings.strategy();
    }

    /** A reloaded keypool.yaml names the channel's strategy anew. */
    void reloaded(PoolSettings reloaded) {
        strategy = reloaded.strategy();
    }

    SelectionStrategy strategy() {
        return strategy;
    }

    /**
     * A usable (ACTIVE after the clock check) key in {@code scope} and not in {@code excludedFingerprints} (null
     * means none) with quota room for one call of {@code tokens}, chosen by the strategy by effective weight; the
     * call's quota is reserved and the key's in-flight count incremented. A tenant's own keys are tried before the
     * shared ones; within each, keys past 95 % of a window are a reserve, used only when no other key has room.
     * Report the call's outcome with exactly one record method of {@link KeyOutcomes} and settle its reservation
     * ({@link KeyLeases#settle}).
     *
     * @param tokens    the call's estimated tokens, asked only if a key counts tokens
     * @param companion the request's tenant admission while it is pending (null for none): it goes with the key's
     *                  reservation to the shared count, which decides it in the same call when the key is limited there
     *                  (design §11: one round trip). The pool never decides it; once the shared count refused it, empty
     *                  with no key reserved. What the reservation left undecided its owner decides (TenantGate).
     */
    public Optional<KeyPool.Lease> acquire(KeyScope scope, Set<String> excludedFingerprints, LongSupplier tokens,
                                           CompanionTake companion) {
        return acquire(scope, excludedFingerprints, tokens, false, companion);
    }

    /**
     * {@link #acquire} for a batch line (design §12): only a key whose every window stays at or below the reserve
     * line (95 %) with this call; never the reserve, which is left to interactive requests.
     */
    public Optional<KeyPool.Lease> acquireBelowSoftLimit(KeyScope scope, Set<String> excludedFingerprints,
                                                         LongSupplier tokens, CompanionTake companion) {
        return acquire(scope, excludedFingerprints, tokens, true, companion);
    }

    private Optional<KeyPool.Lease> acquire(KeyScope scope, Set<String> excludedFingerprints, LongSupplier tokens,
                                            boolean belowSoftLimit, CompanionTake companion) {
        Set<String> excluded = orNone(excludedFingerprints);
        long[] estimate = {-1};
        LongSupplier once = () -> estimate[0] >= 0 ? estimate[0] : (estimate[0] = tokens.getAsLong());
        for (KeyScope tier : scope.tiers()) {
            for (boolean reserve : belowSoftLimit ? new boolean[] {false} : new boolean[] {false, true}) {
                Set<ApiKey> raced = new HashSet<>();
                while (true) {
                    Optional<ApiKey> picked = strategy.pick(keys.all(),
                            key -> tier.admits(key) && !raced.contains(key) && transitions.usable(key, excluded)
                                    && leases.fits(key, once, reserve, belowSoftLimit),
                            reserve ? ApiKey::weight : this::effectiveWeight);
                    if (picked.isEmpty()) {
                        break;
                    }
                    Optional<KeyPool.Lease> lease = leases.tryLease(picked.get(), once, reserve, belowSoftLimit, companion);
                    if (lease.isPresent() || companion != null && companion.refused()) {
                        return lease;
                    }
                    raced.add(picked.get());   // another call took the room between the pick and the reservation
                }
            }
        }
        return Optional.empty();
    }

    /**
     * The share of traffic a key gets now, relative to the others (design §8): its configured weight times its quota
     * factor (a quarter from 90 % of a window, none from 95 %) times its ramp factor ({@link KeyRamp}: warming up,
     * rolling out, retiring) times its recovery factor ({@link KeyHealing}: 0.3 while back from DISABLED or failing).
     */
    public double effectiveWeight(ApiKey key) {
        KeyQuota quota = keys.quota(key);
        double weight = quota.limited() ? key.weight() * quota.weightFactor() : key.weight();
        Instant now = settings.clock().instant();
        return weight * keys.ramp(key).factor(now) * healing.factor(key, now);
    }

    /**
     * Whether a key in {@code scope} is usable, quotas aside (what {@link #acquire} needs besides room); changes
     * nothing but expired cooling states.
     */
    public boolean hasUsableKey(KeyScope scope, Set<String> excludedFingerprints) {
        Set<String> excluded = orNone(excludedFingerprints);
        return keys.all().stream().anyMatch(key -> scope.admits(key) && transitions.usable(key, excluded));
    }

    /**
     * Whether a key outside {@code scope} is usable: when none in scope is, the request's tenant has used up its
     * share of the channel, not the channel its keys.
     */
    public boolean hasUsableKeyOutside(KeyScope scope) {
        return keys.all().stream().anyMatch(key -> !scope.admits(key) && transitions.usable(key, Set.of()));
    }

    /** Whether any key of the channel, of whichever tenant, is ACTIVE: the channel's breaker may try it again. */
    public boolean hasActiveKey() {
        return keys.all().stream().anyMatch(key -> transitions.usable(key, Set.of()));
    }

    private static Set<String> orNone(Set<String> excludedFingerprints) {
        return excludedFingerprints == null ? Set.of() : excludedFingerprints;
    }
}
