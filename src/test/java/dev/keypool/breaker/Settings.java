package dev.keypool.breaker;

import java.time.Duration;
import java.util.EnumSet;
import java.util.Set;

/** Test-side builder: the example block of docs/configuration.md (30%, 15000ms, ...) with one value changed at a time. */
final class Settings {

    private Set<BreakerTrigger> triggers = EnumSet.allOf(BreakerTrigger.class);
    private double errorRateThreshold = 30;
    private Duration errorRateWindow = Duration.ofSeconds(60);
    private int minimumCalls = 10;
    private long latencyThresholdMs = 15_000;
    private Duration latencyWindow = Duration.ofSeconds(60);
    private int consecutiveFailThreshold = 5;
    private Duration recoveryTimeout = Duration.ofSeconds(30);
    private int halfOpenRequests = 3;
    private int halfOpenSuccess = 2;
    private Duration reopenDelay = Duration.ofSeconds(60);

    static Settings spec() {
        return new Settings();
    }

    Settings only(BreakerTrigger first, BreakerTrigger... rest) {
        triggers = EnumSet.of(first, rest);
        return this;
    }

    Settings allBut(BreakerTrigger disabled) {
        triggers = EnumSet.complementOf(EnumSet.of(disabled));
        return this;
    }

    Settings errorRateThreshold(double percent) {
        errorRateThreshold = percent;
        return this;
    }

    Settings minimumCalls(int calls) {
        minimumCalls = calls;
        return this;
    }

    Settings halfOpen(int requests, int success) {
        halfOpenRequests = requests;
        halfOpenSuccess = success;
        return this;
    }

    BreakerSettings build() {
        return new BreakerSettings(triggers, errorRateThreshold, errorRateWindow, minimumCalls, latencyThresholdMs,
                latencyWindow, consecutiveFailThreshold, recoveryTimeout, halfOpenRequests, halfOpenSuccess, reopenDelay);
    }
}
