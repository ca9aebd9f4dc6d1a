package dev.keypool.pool;

import java.time.Duration;
import java.util.Objects;

/**
 * How the keys of a channel without a {@code probe} block heal by themselves (design §8, {@code recovery}): a key
 * DISABLED by failures in a row or by 402 is probed after {@code firstProbe}, then after twice as long each time, up to
 * {@code maxInterval}; one DISABLED by 401 or 403 every {@code maxInterval}. A key that answers comes back ACTIVE and
 * runs at {@link #DEGRADED_FACTOR} of its weight for {@code degradedFor} or until it serves {@link #CLEAN_CALLS} calls
 * without error; so does a key whose error rate is over the channel's threshold, until it is back under it.
 */
public record Recovery(boolean enabled, Duration firstProbe, Duration maxInterval, Duration degradedFor) {

    /** The share of its weight a degraded key gets. */
    public static final double DEGRADED_FACTOR = 0.3;
    /** Calls without error that end a recovered key's degraded time early. */
    public static final int CLEAN_CALLS = 20;

    /** Keys stay DISABLED until an operator or a probe block brings them back. */
    public static final Recovery OFF = new Recovery(false, Duration.ofMinutes(1), Duration.ofMinutes(1), Duration.ZERO);

    public Recovery {
        Objects.requireNonNull(firstProbe, "firstProbe");
        Objects.requireNonNull(maxInterval, "maxInterval");
        Objects.requireNonNull(degradedFor, "degradedFor");
        if (firstProbe.isNegative() || firstProbe.isZero() || maxInterval.compareTo(firstProbe) < 0) {
            throw new IllegalArgumentException("recovery needs 0 < firstProbe <= maxInterval, was " + firstProbe
                    + " and " + maxInterval);
        }
        if (degradedFor.isNegative()) {
            throw new IllegalArgumentException("recovery.degradedFor must not be negative, was " + degradedFor);
        }
    }
}
