package dev.keypool.pool;

import java.util.Optional;
import java.util.OptionalLong;
import java.util.function.LongSupplier;

import dev.keypool.quota.CompanionTake;
import dev.keypool.quota.KeyQuota;

/**
 * A key handed out for one call ({@link KeyPool.Lease}): what the call reserved of the key's quota and its place in
 * flight, taken when the key is chosen and settled when the call is over.
 */
public final class KeyLeases {

    private final PoolKeys keys;

    KeyLeases(PoolKeys keys) {
        this.keys = keys;
    }

    /**
     * Reserves one call of {@code tokens} on {@code key} (chosen by {@link KeySelection}) and counts it in flight;
     * {@code reserve} allows the reserve above 95 %, {@code belowSoftLimit} keeps every window at or below it. The
     * {@code companion} goes with the reservation to the shared count when the key is limited there, and is left as
     * that count left it. Empty when the key has no room (another call took it since it was chosen) or the shared
     * count refused the companion.
     */
    Optional<KeyPool.Lease> tryLease(ApiKey key, LongSupplier tokens, boolean reserve, boolean belowSoftLimit,
                                     CompanionTake companion) {
        KeyQuota quota = keys.quota(key);
        KeyQuota.Reservation reservation = null;
        if (quota.limited()) {
            Optional<KeyQuota.Reservation> reserved = belowSoftLimit
                    ? quota.tryReserveBelowSoftLimit(tokensFor(quota, tokens), companion)
                    : quota.tryReserve(tokensFor(quota, tokens), reserve, companion);
            if (reserved.isEmpty()) {
                return Optional.empty();
            }
            reservation = reserved.get();
        }
        key.counters().acquired();
        return Optional.of(new KeyPool.Lease(key, reservation));
    }

    /**
     * A lease whose call never goes out (its tenant refused the request after the key was leased): its reservation is
     * given back whole, here and in the shared count, and it leaves its place in flight; it counts as no call.
     */
    public void release(KeyPool.Lease lease) {
        ApiKey key = keys.owned(lease.key());
        if (lease.reservation() != null) {
            keys.quota(key).cancel(lease.reservation());
        }
        key.counters().cancelled();
    }

    /**
     * A reserved call is over: its tokens become {@code usedTokens} if the provider said, else the estimate stays
     * ({@code failed} false) or is given back ({@code failed} true).
     */
    public void settle(KeyPool.Lease lease, OptionalLong usedTokens, boolean failed) {
        if (lease.reservation() != null) {
            keys.quota(keys.owned(lease.key())).settle(lease.reservation(), usedTokens, failed);
        }
    }

    /**
     * A health probe of the key starts (design §8), whatever its state: it takes one request of the key's quota and
     * counts as in flight until its outcome is recorded (with {@link KeyOutcomes#recordProbeSuccess} or the record
     * methods of real calls) and its lease {@link #settle settled}. Empty when the key's quota has no room for the
     * probe, which then does not go out.
     *
     * @param tokens what the probe may cost in tokens (a models probe none)
     */
    public Optional<KeyPool.Lease> startProbe(ApiKey key, long tokens) {
        ApiKey owned = keys.owned(key);
        KeyQuota quota = keys.quota(owned);
        KeyPool.Lease lease;
        if (!quota.limited()) {
            lease = new KeyPool.Lease(owned, null);
        } else {
            Optional<KeyQuota.Reservation> reservation = quota.tryReserve(tokensFor(quota, () -> tokens), true);
            if (reservation.isEmpty()) {
                return Optional.empty();
            }
            lease = new KeyPool.Lease(owned, reservation.get());
        }
        owned.counters().acquired();
        return Optional.of(lease);
    }

    /** Whether a call of {@code tokens} fits the key's quota now (within the reserve or not, or below the soft limit). */
    boolean fits(ApiKey key, LongSupplier tokens, boolean reserve, boolean belowSoftLimit) {
        KeyQuota quota = keys.quota(key);
        if (!quota.limited()) {
            return true;
        }
        return belowSoftLimit ? quota.fitsBelowSoftLimit(tokensFor(quota, tokens)) : quota.fits(tokensFor(quota, tokens), reserve);
    }

    private static long tokensFor(KeyQuota quota, LongSupplier tokens) {
        return quota.countsTokens() ? tokens.getAsLong() : 0;
    }
}
