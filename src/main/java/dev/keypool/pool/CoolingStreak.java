package dev.keypool.pool;

import java.time.Duration;
import java.time.Instant;

/**
 * One key's 429s in a row (design §3): a 429 on the first call after its cooling ended doubles the key's cooling
 * bounds ({@link Cooling#time}), a success starts it over. Only 429s without Retry-After take part. Rate limits are
 * rare, so the lock is off the common path; a success reads one volatile flag and writes nothing unless a streak runs.
 */
final class CoolingStreak {

    private int doublings;
    /** When the key's last cooling of this streak ends; null when no streak runs. */
    private Instant coolingEnds;
    private volatile boolean running;

    /** The time to cool after a 429 at {@code now}, {@code random} in [0, 1) picking it between the bounds. */
    synchronized Duration next(Cooling cooling, Instant now, double random) {
        if (coolingEnds != null && !now.isBefore(coolingEnds) && doublings < 30) {
            // rate limited again on the first call after the cooling ended: the provider wants a longer pause
            doublings++;
        }
        Duration time = cooling.time(doublings, random);
        Instant ends = now.plus(time);
        if (coolingEnds == null || ends.isAfter(coolingEnds)) {
            coolingEnds = ends;
        }
        running = true;
        return time;
    }

    void succeeded() {
        if (running) {
            synchronized (this) {
                doublings = 0;
                coolingEnds = null;
                running = false;
            }
        }
    }
}
