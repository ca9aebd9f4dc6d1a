package dev.keypool.gateway;

import java.time.Duration;
import java.util.Objects;

/**
 * What a provider's stream may take of the gateway ({@code keypool.max-sse-event-bytes},
 * {@code keypool.max-stream-seconds}): an event over the one, or a stream still going after the other, fails the
 * attempt like a broken connection, so that a provider cannot make a stream hold the gateway without end.
 *
 * @param maxEventBytes the largest single event
 * @param maxDuration   the longest a stream may run, from the provider's answer to its end event
 */
public record StreamLimits(int maxEventBytes, Duration maxDuration) {

    public StreamLimits {
        if (maxEventBytes < 1) {
            throw new IllegalArgumentException("maxEventBytes must be at least 1, was " + maxEventBytes);
        }
        Objects.requireNonNull(maxDuration, "maxDuration");
    }

    /** A buffer for one stream's events, which holds none over {@code maxEventBytes}. */
    public SseEventBuffer eventBuffer() {
        return new SseEventBuffer(maxEventBytes);
    }

    /** The {@link System#nanoTime()} by which a stream answered now must have ended. */
    public long deadlineNanos() {
        return System.nanoTime() + maxDuration.toNanos();
    }
}
