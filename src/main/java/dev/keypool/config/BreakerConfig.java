package dev.keypool.config;

import java.time.Duration;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/** When a channel's circuit breaker opens (any enabled trigger) and how it probes its way back to CLOSED. */
public record BreakerConfig(Set<String> triggers, double errorRateThreshold, Duration errorRateWindow, int minimumCalls,
                            long latencyThresholdMs, Duration latencyWindow, int consecutiveFailThreshold,
                            Duration recoveryTimeout, int halfOpenRequests, int halfOpenSuccess, Duration reopenDelay) {

    /** Every trigger a breaker may enable, in the order the SPEC lists them. */
    public static final List<String> TRIGGERS = List.of("pool_exhausted", "error_rate", "latency", "consecutive_fail");

    private static final BreakerConfig DEFAULTS = new BreakerConfig(new LinkedHashSet<>(TRIGGERS), 50, Duration.ofSeconds(60), 10,
            30_000, Duration.ofSeconds(60), 5, Duration.ofSeconds(30), 3, 2, Duration.ofSeconds(60));

    public BreakerConfig {
        triggers = Copies.set(triggers);
    }

    /** The values a channel gets for every breaker field it leaves out (SPEC §1). */
    public static BreakerConfig defaults() {
        return DEFAULTS;
    }
}
