package dev.keypool.breaker;

import java.time.Clock;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;

import dev.keypool.window.SlidingWindow;

/**
 * What a CLOSED breaker watches: visit outcomes over the two windows, pool exhaustion and per-key failure
 * streaks. It records everything (so status shows the figures even for disabled triggers) and answers, per
 * event, whether an enabled trigger fires. Not thread-safe: {@link ChannelBreaker} calls it under its lock.
 */
final class TripDetector {

    private final BreakerSettings settings;
    private final SlidingWindow errorWindow;
    private final SlidingWindow latencyWindow;
    /** Latest failure streak the pool reported per key fingerprint; a key drops out when it succeeds. */
    private final Map<String, Integer> keyStreaks = new HashMap<>();
    private long poolExhaustedCount;

    TripDetector(BreakerSettings settings, Clock clock) {
        this.settings = settings;
        this.errorWindow = new SlidingWindow(settings.errorRateWindow(), clock);
        this.latencyWindow = new SlidingWindow(settings.latencyWindow(), clock);
    }

    /** One visit's result; the latency of failed visits counts too, since a timing-out upstream is a slow one. */
    Optional<Trip> visit(boolean failed, long latencyMs) {
        errorWindow.record(failed, latencyMs);
        latencyWindow.record(failed, latencyMs);
        return errorRateTrip().or(this::latencyTrip);
    }

    Optional<Trip> poolExhausted() {
        poolExhaustedCount++;
        return settings.enabled(BreakerTrigger.POOL_EXHAUSTED) ? Optional.of(Trip.poolExhausted()) : Optional.empty();
    }

    Optional<Trip> keyFailure(String keyFingerprint, int consecutiveFailures) {
        keyStreaks.put(keyFingerprint, consecutiveFailures);
        if (settings.enabled(BreakerTrigger.CONSECUTIVE_FAIL) && consecutiveFailures >= settings.consecutiveFailThreshold()) {
            return Optional.of(Trip.consecutiveFail(consecutiveFailures, settings.consecutiveFailThreshold()));
        }
        return Optional.empty();
    }

    void keySuccess(String keyFingerprint) {
        keyStreaks.remove(keyFingerprint);
    }

    /** A fresh start after a trip or a close: old evidence must not trip the breaker again at once. */
    void reset() {
        errorWindow.reset();
        latencyWindow.reset();
        keyStreaks.clear();
        poolExhaustedCount = 0;
    }

    SlidingWindow.Snapshot errorSnapshot() {
        return errorWindow.snapshot();
    }

    SlidingWindow.Snapshot latencySnapshot() {
        return latencyWindow.snapshot();
    }

    int maxKeyConsecutiveFailures() {
        return keyStreaks.values().stream().mapToInt(Integer::intValue).max().orElse(0);
    }

    long poolExhaustedCount() {
        return poolExhaustedCount;
    }

    private Optional<Trip> errorRateTrip() {
        if (!settings.enabled(BreakerTrigger.ERROR_RATE)) {
            return Optional.empty();
        }
        SlidingWindow.Snapshot s = errorWindow.snapshot();
        if (s.calls() < settings.minimumCalls() || s.failureRatePercent() < settings.errorRateThreshold()) {
            return Optional.empty();
        }
        return Optional.of(Trip.errorRate(s.failureRatePercent(), settings.errorRateThreshold()));
    }

    private Optional<Trip> latencyTrip() {
        if (!settings.enabled(BreakerTrigger.LATENCY)) {
            return Optional.empty();
        }
        SlidingWindow.Snapshot s = latencyWindow.snapshot();
        if (s.calls() < settings.minimumCalls() || s.averageLatencyMs() <= settings.latencyThresholdMs()) {
            return Optional.empty();
        }
        return Optional.of(Trip.latency(s.averageLatencyMs(), settings.latencyThresholdMs()));
    }
}
