package dev.keypool.camel.batch;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;

/**
 * How long the records of one Kafka poll may hold their partition waiting for capacity ({@code batch.kafka.maxHold}),
 * counted from when its consumer thread took the poll's first record. The records of one poll run one after another on
 * their consumer thread, and Kafka wants the next poll within {@code max.poll.interval.ms} of this one.
 */
final class PollHolds {

    private final long maxHoldNanos;
    private final LongSupplier nanoTime;
    /** When the poll each consumer thread is running the records of began, by {@link #nanoTime}. */
    private final Map<Thread, Long> started = new ConcurrentHashMap<>();

    /** @param nanoTime {@link System#nanoTime()}, or a test's ticker */
    PollHolds(Duration maxHold, LongSupplier nanoTime) {
        this.maxHoldNanos = maxHold.toNanos();
        this.nanoTime = nanoTime;
    }

    /** By when a record the consumer thread takes now must leave it: maxHold after its poll's first record. */
    long deadline(Thread consumer) {
        return started.computeIfAbsent(consumer, t -> nanoTime.getAsLong()) + maxHoldNanos;
    }

    /** The consumer thread's poll is over (its last record taken, or one failed): its next record starts a new one. */
    void ended(Thread consumer) {
        started.remove(consumer);
    }

    /** Whether a record may still wait for capacity: its {@link #deadline} has not come. */
    boolean holding(long deadline) {
        return nanoTime.getAsLong() - deadline < 0;
    }
}
