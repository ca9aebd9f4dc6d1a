package dev.keypool.pool;

/**
 * Counters of one key, an immutable snapshot. The window fields cover the last 60 seconds; a 429 counts there
 * as a call and as a failure. Streams also count their time to first byte.
 */
public record KeyStats(long callCount, long successCount, long failureCount, long rateLimitCount,
                       long promptTokens, long completionTokens, long totalLatencyMs, long maxLatencyMs,
                       long windowCalls, long windowFailures, int consecutiveFailures, int inFlight,
                       long streamCount, long totalTimeToFirstByteMs, long maxTimeToFirstByteMs) {

    /** totalLatencyMs / callCount, 0 when there were no calls. */
    public double averageLatencyMs() {
        return callCount == 0 ? 0.0 : (double) totalLatencyMs / callCount;
    }

    /** Mean time to first byte of streamed answers, 0 when there were none. */
    public double averageTimeToFirstByteMs() {
        return streamCount == 0 ? 0.0 : (double) totalTimeToFirstByteMs / streamCount;
    }
}
