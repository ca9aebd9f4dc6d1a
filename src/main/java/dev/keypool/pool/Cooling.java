package dev.keypool.pool;

import java.time.Duration;
import java.util.Objects;

/**
 * How long a key cools after a 429 without Retry-After (design §3): a random time in {@code [min, max]}, so that keys
 * rate limited together do not all come back in the same second; {@code doubles} when a 429 on the first call after a
 * cooling doubles both bounds for that key (up to {@link #LONGEST}), until a success. A channel that sets a fixed
 * {@code cooldown} cools for exactly that time, every time ({@link #fixed}).
 */
public record Cooling(Duration min, Duration max, boolean doubles) {

    /** The doubled bounds never go past this. */
    public static final Duration LONGEST = Duration.ofMinutes(10);

    public Cooling {
        Objects.requireNonNull(min, "min");
        Objects.requireNonNull(max, "max");
        if (min.isNegative() || max.compareTo(min) < 0) {
            throw new IllegalArgumentException("cooling needs 0 <= min <= max, was " + min + " and " + max);
        }
    }

    /** Exactly {@code cooldown}, every time. */
    public static Cooling fixed(Duration cooldown) {
        return new Cooling(cooldown, cooldown, false);
    }

    /** A random time in {@code [min, max]}, doubling for a key rate limited again at once. */
    public static Cooling spread(Duration min, Duration max) {
        return new Cooling(min, max, true);
    }

    /**
     * The time to cool after the key's {@code doublings}-th 429 in a row: at {@code random} in [0, 1) between the
     * doubled bounds, each at most {@link #LONGEST} (a fixed time is never doubled).
     */
    Duration time(int doublings, double random) {
        long lo = doubled(min.toMillis(), doublings);
        long hi = doubled(max.toMillis(), doublings);
        return Duration.ofMillis(lo + (long) ((hi - lo) * random));
    }

    private long doubled(long millis, int doublings) {
        if (!doubles || millis >= LONGEST.toMillis()) {
            return millis;
        }
        // past 2^20 any bound is beyond LONGEST: the shift cannot overflow
        long times = millis << Math.min(doublings, 20);
        return Math.min(times, LONGEST.toMillis());
    }
}
