package dev.keypool.breaker;

import java.math.BigDecimal;
import java.util.Locale;

/**
 * Why a trigger fired: the trigger plus the observed figure against its threshold, worded as the trip log line
 * shows it, e.g. {@code error_rate (45.0% >= 30%)}.
 */
record Trip(BreakerTrigger trigger, String evidence) {

    static Trip poolExhausted() {
        return new Trip(BreakerTrigger.POOL_EXHAUSTED, "no usable key");
    }

    static Trip errorRate(double percent, double thresholdPercent) {
        // observed rate always with one decimal, threshold as the operator wrote it (30 -> "30", 12.5 -> "12.5")
        return new Trip(BreakerTrigger.ERROR_RATE,
                String.format(Locale.ROOT, "%.1f%% >= %s%%", percent, asWritten(thresholdPercent)));
    }

    static Trip latency(double averageMs, long thresholdMs) {
        // whole milliseconds as a rule; one decimal only when the mean has a fraction, because rounding 15000.4
        // down would print the confusing "15000ms > 15000ms"
        String average = averageMs == Math.rint(averageMs)
                ? Long.toString((long) averageMs)
                : String.format(Locale.ROOT, "%.1f", averageMs);
        return new Trip(BreakerTrigger.LATENCY, average + "ms > " + thresholdMs + "ms");
    }

    static Trip consecutiveFail(int failuresInARow, int threshold) {
        return new Trip(BreakerTrigger.CONSECUTIVE_FAIL, failuresInARow + " >= " + threshold);
    }

    /** {@code error_rate (45.0% >= 30%)}: the part of the trip line after "tripped: ". */
    String describe() {
        return trigger.configName() + " (" + evidence + ")";
    }

    /** A configured number as the operator wrote it: no spurious ".0", no exponent. */
    private static String asWritten(double value) {
        return BigDecimal.valueOf(value).stripTrailingZeros().toPlainString();
    }
}
