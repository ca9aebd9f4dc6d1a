package dev.keypool.breaker;

import java.time.Instant;

/**
 * A consistent snapshot of one breaker for /admin/status and metrics: its state and the figures each trigger
 * looks at, taken under the breaker's lock so they belong together.
 *
 * @param errorRatePercent          failures / calls over errorRateWindow (0 without calls)
 * @param callsInWindow             visits recorded in errorRateWindow
 * @param averageLatencyMs          mean upstream latency over latencyWindow (0 without calls)
 * @param maxKeyConsecutiveFailures highest current failure streak reported for a key of the channel
 * @param poolExhaustedCount        visits that found no usable key since the breaker last closed or tripped
 * @param trippedBy                 trigger (config name) or operator reason that opened it; null when CLOSED
 * @param nextAttemptAt             when OPEN: earliest time for HALF_OPEN; null otherwise or when forced open
 * @param halfOpenSuccesses         successful probes so far, when HALF_OPEN
 * @param halfOpenProbes            probe results so far, when HALF_OPEN
 */
public record BreakerFigures(
        BreakerState state,
        double errorRatePercent,
        long callsInWindow,
        double averageLatencyMs,
        int maxKeyConsecutiveFailures,
        long poolExhaustedCount,
        String trippedBy,
        Instant nextAttemptAt,
        int halfOpenSuccesses,
        int halfOpenProbes) {
}
