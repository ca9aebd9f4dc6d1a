package dev.keypool.window;

import java.time.Clock;
import java.time.Duration;

/**
 * Calls, failures and latency over the last {@code window} of time, kept in fixed time buckets so that
 * recording is O(1) and old samples fall out without a sweep. Shared by key counters and breaker triggers.
 */
public final class SlidingWindow {

    /** What the window holds right now. */
    public record Snapshot(long calls, long failures, long totalLatencyMs) {

        /** Failure share in percent, 0 when there were no calls. */
        public double failureRatePercent() {
            return calls == 0 ? 0.0 : failures * 100.0 / calls;
        }

        /** Mean latency in ms, 0 when there were no calls. */
        public double averageLatencyMs() {
            return calls == 0 ? 0.0 : (double) totalLatencyMs / calls;
        }
    }

    private final Clock clock;
    private final long bucketMillis;
    private final long[] bucketEpoch;
    private final long[] calls;
    private final long[] failures;
    private final long[] latency;

    public SlidingWindow(Duration window, Clock clock) {
        this(window, 20, clock);
    }

    public SlidingWindow(Duration window, int buckets, Clock clock) {
        if (window.isNegative() || window.isZero() || buckets < 1) {
            throw new IllegalArgumentException("window must be positive and have at least one bucket");
        }
        this.clock = clock;
        this.bucketMillis = Math.max(1, window.toMillis() / buckets);
        this.bucketEpoch = new long[buckets];
        this.calls = new long[buckets];
        this.failures = new long[buckets];
        this.latency = new long[buckets];
        java.util.Arrays.fill(bucketEpoch, Long.MIN_VALUE);
    }

    public synchronized void record(boolean failure, long latencyMs) {
        long epoch = clock.millis() / bucketMillis;
        int i = (int) Math.floorMod(epoch, (long) bucketEpoch.length);
        if (bucketEpoch[i] != epoch) {
            bucketEpoch[i] = epoch;
            calls[i] = 0;
            failures[i] = 0;
            latency[i] = 0;
        }
        calls[i]++;
        if (failure) {
            failures[i]++;
        }
        latency[i] += Math.max(0, latencyMs);
    }

    public synchronized Snapshot snapshot() {
        long epoch = clock.millis() / bucketMillis;
        long oldest = epoch - bucketEpoch.length + 1;
        long c = 0;
        long f = 0;
        long l = 0;
        for (int i = 0; i < bucketEpoch.length; i++) {
            if (bucketEpoch[i] >= oldest && bucketEpoch[i] <= epoch) {
                c += calls[i];
                f += failures[i];
                l += latency[i];
            }
        }
        return new Snapshot(c, f, l);
    }

    /**
     * Whether more than {@code percent} of the calls now in the window failed, once it holds {@code minimumCalls}
     * (false before): what {@code snapshot().failureRatePercent() > percent} says, without a snapshot, for a check
     * made on every call.
     */
    public synchronized boolean failureRateAbove(double percent, long minimumCalls) {
        long epoch = clock.millis() / bucketMillis;
        long oldest = epoch - bucketEpoch.length + 1;
        long c = 0;
        long f = 0;
        for (int i = 0; i < bucketEpoch.length; i++) {
            if (bucketEpoch[i] >= oldest && bucketEpoch[i] <= epoch) {
                c += calls[i];
                f += failures[i];
            }
        }
        return c > 0 && c >= minimumCalls && f * 100.0 / c > percent;
    }

    public synchronized void reset() {
        java.util.Arrays.fill(bucketEpoch, Long.MIN_VALUE);
    }
}
