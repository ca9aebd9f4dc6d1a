package dev.keypool.pool;

import java.time.Duration;
import java.time.Instant;
import java.util.Optional;

/**
 * What the outcome of each call on a key does to it: counters, and the state changes of design §8 (429 → COOLING,
 * failures in a row or rejected credentials → DISABLED, a probe's 2xx → ACTIVE again). Exactly one record method per
 * leased call.
 */
public final class KeyOutcomes {

    // far beyond any real Retry-After, and keeps now + wait clear of Instant overflow
    private static final Duration LONGEST_COOLING = Duration.ofDays(365);

    private final PoolKeys keys;
    private final KeyTransitions transitions;
    private final KeyHealing healing;
    private volatile PoolSettings settings;

    KeyOutcomes(PoolSettings settings, PoolKeys keys, KeyTransitions transitions, KeyHealing healing) {
        this.settings = settings;
        this.keys = keys;
        this.transitions = transitions;
        this.healing = healing;
    }

    /** A reloaded keypool.yaml's disableAfter applies to the next outcomes (its cooling through KeyHealing). */
    void reloaded(PoolSettings reloaded) {
        settings = reloaded;
    }

    /** A streamed answer sent its first byte; the call stays in flight until its outcome is recorded. */
    public void recordFirstByte(ApiKey key, Duration timeToFirstByte) {
        keys.owned(key).counters().firstByte(millis(timeToFirstByte));
    }

    /** A 2xx: resets the failures in a row and the 429s in a row. */
    public void recordSuccess(ApiKey key, Duration latency, long promptTokens, long completionTokens) {
        ApiKey owned = keys.owned(key);
        owned.counters().success(millis(latency), promptTokens, completionTokens);
        healing.succeeded(owned);
    }

    /**
     * A 429: the key cools until now + retryAfter, or without Retry-After for the pool's cooling ({@link Cooling}: a
     * random time between its bounds, doubled for a key rate limited again on its first call after cooling), or
     * longer if it already cools longer. Leaves the failures in a row alone: being rate limited says nothing about
     * the key being broken.
     */
    public void recordRateLimited(ApiKey key, Duration latency, Optional<Duration> retryAfter) {
        ApiKey owned = keys.owned(key);
        owned.counters().rateLimited(millis(latency));
        Instant now = settings.clock().instant();
        Instant deadline = now.plus(retryAfter != null && retryAfter.isPresent() ? bounded(retryAfter.get())
                : bounded(healing.coolingTime(owned, now)));
        // a DISABLED key stays DISABLED (no change, no line); otherwise it cools until the later deadline
        transitions.transition(owned, current -> current.coolUntil(deadline),
                after -> "cooling " + Duration.between(now, after.coolingUntil()).toSeconds() + "s after 429");
    }

    /**
     * A 5xx, timeout or connection error; {@code cause} such as "503", "timeout", "connection refused".
     *
     * @return the key's failures in a row, this one included
     */
    public int recordFailure(ApiKey key, Duration latency, String cause) {
        ApiKey owned = keys.owned(key);
        int inARow = owned.counters().failure(millis(latency));
        healing.failed(owned);
        if (inARow >= settings.disableAfter()) {
            healing.disabled(owned, false);
            transitions.transition(owned, current -> KeyAvailability.DISABLED,
                    after -> "disabled after " + inARow + " consecutive failures (last: " + owned.redact(cause) + ")");
        }
        return inARow;
    }

    /** A 401/402/403: the upstream refuses this key, so it is disabled at once. */
    public void recordRejected(ApiKey key, Duration latency, int status) {
        ApiKey owned = keys.owned(key);
        owned.counters().rejected(millis(latency));
        healing.failed(owned);
        // a 402 is often settled within the hour (a payment); new credentials for a 401/403 rarely are
        healing.disabled(owned, status != 402);
        transitions.transition(owned, current -> KeyAvailability.DISABLED, after -> "disabled after " + status + " from upstream");
    }

    /** A 400/404/413/422 that goes back to the client, or a client that left: the key was not at fault. */
    public void recordClientError(ApiKey key, Duration latency) {
        keys.owned(key).counters().clientError();
    }

    /**
     * A probe got a 2xx: the failures in a row start again, and a DISABLED key comes back ACTIVE, warming up, and
     * where the pool recovers keys by itself degraded for a while (KeyHealing); a key an operator disabled stays
     * DISABLED.
     */
    public void recordProbeSuccess(ApiKey key, Duration latency) {
        ApiKey owned = keys.owned(key);
        owned.counters().success(millis(latency), 0, 0);
        owned.coolingStreak().succeeded();
        if (transitions.disabledByOperator(owned.fingerprint()) || owned.storedState() != KeyState.DISABLED) {
            return;
        }
        String degraded = healing.backFromProbe(owned);
        transitions.transition(owned, current -> current.state() == KeyState.DISABLED ? KeyAvailability.ACTIVE : current,
                after -> "probe ok, DISABLED -> ACTIVE" + transitions.warmingUp() + degraded);
    }

    private static Duration bounded(Duration wait) {
        if (wait.isNegative()) {
            return Duration.ZERO;
        }
        return wait.compareTo(LONGEST_COOLING) > 0 ? LONGEST_COOLING : wait;
    }

    private static long millis(Duration latency) {
        return latency == null ? 0 : Math.max(0, latency.toMillis());
    }
}
