package dev.keypool.pool;

import java.time.Clock;
import java.time.Duration;
import java.util.OptionalDouble;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import dev.keypool.window.SlidingWindow;

/**
 * The counters of one key. Every outcome method also ends the call's in-flight slot, so that the pool cannot
 * forget to (or twice) release it. Lock-free apart from the sliding window's own short lock.
 */
final class KeyCounters {

    static final Duration WINDOW = Duration.ofSeconds(60);

    private final AtomicLong calls = new AtomicLong();
    private final AtomicLong successes = new AtomicLong();
    private final AtomicLong failures = new AtomicLong();
    private final AtomicLong rateLimits = new AtomicLong();
    private final AtomicLong promptTokens = new AtomicLong();
    private final AtomicLong completionTokens = new AtomicLong();
    private final AtomicLong totalLatencyMs = new AtomicLong();
    private final AtomicLong maxLatencyMs = new AtomicLong();
    private final AtomicLong streams = new AtomicLong();
    private final AtomicLong totalFirstByteMs = new AtomicLong();
    private final AtomicLong maxFirstByteMs = new AtomicLong();
    private final AtomicInteger consecutiveFailures = new AtomicInteger();
    private final AtomicInteger inFlight = new AtomicInteger();
    // created by the first pool the key joins, because the window must run on that pool's clock
    private volatile SlidingWindow window;

    synchronized void useClock(Clock clock) {
        if (window == null) {
            window = new SlidingWindow(WINDOW, clock);
        }
    }

    void acquired() {
        inFlight.incrementAndGet();
    }

    void success(long latencyMs, long prompt, long completion) {
        called(false, latencyMs);
        successes.incrementAndGet();
        promptTokens.addAndGet(Math.max(0, prompt));
        completionTokens.addAndGet(Math.max(0, completion));
        consecutiveFailures.set(0);
    }

    /** A streamed answer started: its time to first byte (the call itself ends later with its outcome). */
    void firstByte(long ttfbMs) {
        long ms = Math.max(0, ttfbMs);
        streams.incrementAndGet();
        totalFirstByteMs.addAndGet(ms);
        maxFirstByteMs.accumulateAndGet(ms, Math::max);
    }

    void rateLimited(long latencyMs) {
        called(true, latencyMs);
        rateLimits.incrementAndGet();
    }

    /** Returns the number of failures in a row, this one included. */
    int failure(long latencyMs) {
        called(true, latencyMs);
        failures.incrementAndGet();
        return consecutiveFailures.incrementAndGet();
    }

    void rejected(long latencyMs) {
        called(true, latencyMs);
        failures.incrementAndGet();
    }

    /** A call that never went out: it leaves its place in flight and counts as nothing. */
    void cancelled() {
        released();
    }

    /** A 4xx that is the client's fault says nothing about the key. */
    void clientError() {
        released();
    }

    void resetConsecutiveFailures() {
        consecutiveFailures.set(0);
    }

    int inFlight() {
        return inFlight.get();
    }

    /** Mean latency over the window, empty while the window holds no call. */
    OptionalDouble recentLatencyMs() {
        SlidingWindow.Snapshot recent = windowSnapshot();
        return recent.calls() == 0 ? OptionalDouble.empty() : OptionalDouble.of(recent.averageLatencyMs());
    }

    /** Whether more than {@code percent} of the calls in the window failed, once it holds {@code minimumCalls}. */
    boolean failingMoreThan(double percent, int minimumCalls) {
        SlidingWindow w = window;
        return w != null && w.failureRateAbove(percent, minimumCalls);
    }

    KeyStats snapshot() {
        SlidingWindow.Snapshot recent = windowSnapshot();
        return new KeyStats(calls.get(), successes.get(), failures.get(), rateLimits.get(),
                promptTokens.get(), completionTokens.get(), totalLatencyMs.get(), maxLatencyMs.get(),
                recent.calls(), recent.failures(), consecutiveFailures.get(), inFlight.get(),
                streams.get(), totalFirstByteMs.get(), maxFirstByteMs.get());
    }

    private void called(boolean failed, long latencyMs) {
        released();
        long ms = Math.max(0, latencyMs);
        calls.incrementAndGet();
        totalLatencyMs.addAndGet(ms);
        maxLatencyMs.accumulateAndGet(ms, Math::max);
        SlidingWindow w = window;
        if (w != null) {
            w.record(failed, ms);
        }
    }

    private void released() {
        // floor at 0: an outcome reported without an acquire must not leave the key looking less busy than idle
        inFlight.updateAndGet(n -> n > 0 ? n - 1 : 0);
    }

    private SlidingWindow.Snapshot windowSnapshot() {
        SlidingWindow w = window;
        return w == null ? new SlidingWindow.Snapshot(0, 0, 0) : w.snapshot();
    }
}
