package dev.keypool.pool;

import java.time.Instant;
import java.util.Comparator;
import java.util.Optional;

import dev.keypool.quota.KeyQuota;

/**
 * When a pool's keys can take calls, for a request that waits for room (design §10) and for the Retry-After of one
 * that cannot wait: changes nothing but expired cooling states.
 */
public final class KeyCapacity {

    private final PoolSettings settings;
    private final PoolKeys keys;
    private final KeyTransitions transitions;

    KeyCapacity(PoolSettings settings, PoolKeys keys, KeyTransitions transitions) {
        this.settings = settings;
        this.keys = keys;
        this.transitions = transitions;
    }

    /**
     * How many requests this pool's keys in {@code scope} can take from now until {@code deadline} by their request
     * limits, {@link Long#MAX_VALUE} when a key that can serve by then has none. Disabled keys and keys cooling past
     * the deadline take none.
     */
    public long requestRoomBy(KeyScope scope, Instant deadline) {
        long room = 0;
        for (ApiKey key : keys.all()) {
            if (!scope.admits(key)) {
                continue;
            }
            KeyAvailability availability = transitions.refresh(key);
            if (availability.state() == KeyState.DISABLED || key.draining()
                    || availability.state() == KeyState.COOLING && !availability.coolingUntil().isBefore(deadline)) {
                continue;
            }
            long keyRoom = keys.quota(key).requestRoomBy(deadline);
            if (keyRoom == Long.MAX_VALUE) {
                return Long.MAX_VALUE;
            }
            room += keyRoom;
        }
        return room;
    }

    /**
     * The earliest moment a key of this pool in {@code scope} can take a call of {@code tokens}: now when one can, a
     * cooling deadline or the moment a quota window frees room; empty when no key ever will (all disabled, or the
     * call is larger than every key's limit).
     */
    public Optional<Instant> capacityAt(KeyScope scope, long tokens) {
        return capacityAt(scope, tokens, false);
    }

    /** {@link #capacityAt} for a batch line: room below the keys' soft limits ({@link KeySelection#acquireBelowSoftLimit}). */
    public Optional<Instant> capacityBelowSoftLimitAt(KeyScope scope, long tokens) {
        return capacityAt(scope, tokens, true);
    }

    private Optional<Instant> capacityAt(KeyScope scope, long tokens, boolean belowSoftLimit) {
        Instant now = settings.clock().instant();
        Optional<Instant> soonest = Optional.empty();
        for (ApiKey key : keys.all()) {
            if (!scope.admits(key)) {
                continue;
            }
            KeyAvailability availability = transitions.refresh(key);
            if (availability.state() == KeyState.DISABLED || key.draining()) {
                continue;
            }
            Instant from = availability.state() == KeyState.COOLING ? availability.coolingUntil() : now;
            KeyQuota quota = keys.quota(key);
            Optional<Instant> room = (belowSoftLimit ? quota.capacityBelowSoftLimitAt(tokens) : quota.capacityAt(tokens))
                    .map(at -> at.isAfter(from) ? at : from);
            if (room.isPresent() && (soonest.isEmpty() || room.get().isBefore(soonest.get()))) {
                soonest = room;
            }
        }
        return soonest;
    }

    /** The earliest cooling deadline among COOLING keys in {@code scope}; empty when none is cooling. */
    public Optional<Instant> soonestRecovery(KeyScope scope) {
        return keys.all().stream()
                .filter(scope::admits)
                .map(transitions::refresh)
                .filter(availability -> availability.state() == KeyState.COOLING)
                .map(KeyAvailability::coolingUntil)
                .min(Comparator.naturalOrder());
    }
}
