package dev.keypool.pool;

import java.time.Duration;
import java.time.Instant;

/**
 * The share of its weight a key gets while it enters or leaves service (design §8), as a factor of its weight:
 * <ul>
 *   <li>warm-up: a key back in service (re-enabled, back from DISABLED) gets 20 % in the first third of its
 *       channel's {@code warmup}, 50 % in the second, then 100 %;</li>
 *   <li>rollout: a key with {@code rollout} starts at 10 % and grows evenly to 100 % over it, from the moment its
 *       pool was made;</li>
 *   <li>retiring: 10 % for good (a path back that still carries a little traffic).</li>
 * </ul>
 * The factors multiply. Thread-safe: the warm-up start is the only thing that changes.
 */
public final class KeyRamp {

    /** How a key is configured to enter or leave service: {@code rollout} null for none. */
    public record Plan(Duration rollout, boolean retiring) {

        public static final Plan NONE = new Plan(null, false);

        public Plan {
            if (rollout != null && (rollout.isNegative() || rollout.isZero())) {
                throw new IllegalArgumentException("rollout must be positive, was " + rollout);
            }
        }
    }

    /** The share a key starts its rollout with, and keeps while retiring. */
    static final double TENTH = 0.10;
    private static final double FIRST_THIRD = 0.20;
    private static final double SECOND_THIRD = 0.50;

    private final Duration warmup;
    private final Plan plan;
    private final Instant rolloutStart;
    private volatile Instant warmingSince;

    /**
     * @param warmup       the channel's warm-up, zero for none
     * @param rolloutStart when the key's rollout began (the pool's start)
     */
    KeyRamp(Duration warmup, Plan plan, Instant rolloutStart) {
        this.warmup = warmup == null ? Duration.ZERO : warmup;
        this.plan = plan == null ? Plan.NONE : plan;
        this.rolloutStart = rolloutStart;
    }

    /** The key comes back into service now: it warms up over the channel's warmup (if it has one). */
    void enteredService(Instant now) {
        if (!warmup.isZero()) {
            warmingSince = now;
        }
    }

    /** The factor of the key's weight now, in (0, 1]. */
    double factor(Instant now) {
        double factor = warmUpFactor(now);
        Instant rolloutEnd = rolloutUntil();
        if (rolloutEnd != null && now.isBefore(rolloutEnd)) {
            double done = (double) Duration.between(rolloutStart, now).toMillis() / plan.rollout().toMillis();
            factor *= TENTH + (1 - TENTH) * Math.max(0, done);
        }
        return plan.retiring() ? factor * TENTH : factor;
    }

    /**
     * Whether the key is warming up (for the whole warmup, though its last third is at full weight), rolling out or
     * retiring now: it then shows as degraded.
     */
    boolean ramping(Instant now) {
        Instant rolloutEnd = rolloutUntil();
        return plan.retiring() || warmingUntil(now) != null || rolloutEnd != null && now.isBefore(rolloutEnd);
    }

    boolean retiring() {
        return plan.retiring();
    }

    /** When the warm-up ends; null when the key is not warming up now. */
    Instant warmingUntil(Instant now) {
        Instant since = warmingSince;
        if (since == null) {
            return null;
        }
        Instant until = since.plus(warmup);
        return now.isBefore(until) ? until : null;
    }

    /** When the rollout ends (reached or not); null for a key without rollout. */
    Instant rolloutUntil() {
        return plan.rollout() == null ? null : rolloutStart.plus(plan.rollout());
    }

    private double warmUpFactor(Instant now) {
        Instant since = warmingSince;
        if (since == null) {
            return 1.0;
        }
        long elapsed = Duration.between(since, now).toMillis();
        long third = warmup.toMillis() / 3;
        if (elapsed < third) {
            return FIRST_THIRD;
        }
        return elapsed < 2 * third ? SECOND_THIRD : 1.0;
    }
}
