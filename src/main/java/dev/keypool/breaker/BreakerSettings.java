package dev.keypool.breaker;

import java.time.Duration;
import java.util.Collections;
import java.util.EnumSet;
import java.util.Objects;
import java.util.Set;

/**
 * One channel's {@code breaker:} block of keypool.yaml, already parsed. The constructor rejects values the
 * breaker could not work with, so a {@link ChannelBreaker} never has to second-guess its settings; the config
 * loader is expected to have reported such problems with file positions before we get here.
 */
public record BreakerSettings(
        Set<BreakerTrigger> triggers,
        double errorRateThreshold,
        Duration errorRateWindow,
        int minimumCalls,
        long latencyThresholdMs,
        Duration latencyWindow,
        int consecutiveFailThreshold,
        Duration recoveryTimeout,
        int halfOpenRequests,
        int halfOpenSuccess,
        Duration reopenDelay) {

    public BreakerSettings {
        Objects.requireNonNull(triggers, "triggers");
        // an immutable copy, so a caller changing its set later cannot switch triggers behind the breaker's back
        triggers = triggers.isEmpty()
                ? Set.of()
                : Collections.unmodifiableSet(EnumSet.copyOf(triggers));
        if (!(errorRateThreshold > 0 && errorRateThreshold <= 100)) {
            throw new IllegalArgumentException("errorRateThreshold must be a percent in (0, 100], was " + errorRateThreshold);
        }
        requirePositive(errorRateWindow, "errorRateWindow");
        if (minimumCalls < 1) {
            throw new IllegalArgumentException("minimumCalls must be at least 1, was " + minimumCalls);
        }
        if (latencyThresholdMs < 1) {
            throw new IllegalArgumentException("latencyThresholdMs must be at least 1, was " + latencyThresholdMs);
        }
        requirePositive(latencyWindow, "latencyWindow");
        if (consecutiveFailThreshold < 1) {
            throw new IllegalArgumentException("consecutiveFailThreshold must be at least 1, was " + consecutiveFailThreshold);
        }
        requirePositive(recoveryTimeout, "recoveryTimeout");
        if (halfOpenRequests < 1) {
            throw new IllegalArgumentException("halfOpenRequests must be at least 1, was " + halfOpenRequests);
        }
        if (halfOpenSuccess < 1 || halfOpenSuccess > halfOpenRequests) {
            throw new IllegalArgumentException("halfOpenSuccess must be between 1 and halfOpenRequests ("
                    + halfOpenRequests + "), was " + halfOpenSuccess);
        }
        requirePositive(reopenDelay, "reopenDelay");
    }

    /** The defaults (docs/configuration.md): every trigger on, 50% over 60s after 10 calls, 30s average latency, 5 in a row, 30s/3/2/60s. */
    public static BreakerSettings defaults() {
        return new BreakerSettings(EnumSet.allOf(BreakerTrigger.class), 50, Duration.ofSeconds(60), 10, 30_000,
                Duration.ofSeconds(60), 5, Duration.ofSeconds(30), 3, 2, Duration.ofSeconds(60));
    }

    public boolean enabled(BreakerTrigger trigger) {
        return triggers.contains(trigger);
    }

    private static void requirePositive(Duration d, String name) {
        Objects.requireNonNull(d, name);
        if (d.isNegative() || d.isZero()) {
            throw new IllegalArgumentException(name + " must be positive, was " + d);
        }
    }
}
