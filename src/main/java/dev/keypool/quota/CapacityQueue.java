package dev.keypool.quota;

import java.time.Clock;
import java.time.Instant;
import java.util.Comparator;
import java.util.NavigableSet;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.BooleanSupplier;

/**
 * The line of requests waiting for quota room (design §6 "waiting for capacity"): higher tenant priority first
 * (design §7), first come, first served within a priority; the first in line goes as soon as its room is there, the
 * others wait behind it, so a request of higher priority is at most one departure behind whoever was first when
 * it came. Bounded by {@code maxSize}. A waiter
 * parks its thread (a virtual thread costs no platform thread while it waits) and leaves at once when it is
 * interrupted (its client hung up). Deadlines are in the gateway's clock; the line re-checks whenever
 * {@link #wake()} is called, which the gateway does on a short timer, so it works with any clock.
 */
public final class CapacityQueue {

    /** Why a wait ended. */
    public enum Outcome { ROOM, TIMED_OUT, FULL }

    private final int maxSize;
    private final Clock clock;
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition changed = lock.newCondition();
    /** A place in line: by priority, then by arrival. */
    private record Place(Priority priority, long arrival) {
    }

    private final NavigableSet<Place> line = new TreeSet<>(
            Comparator.comparing(Place::priority).thenComparingLong(Place::arrival));
    private long arrivals;
    /** The waiter that left with room last and has not yet said it took it; null when none. */
    private Object dispatching;
    private long dispatchStarted;
    /** A dispatched waiter that never says so (its request failed on the way) holds the line this long at most. */
    private static final long LONGEST_DISPATCH_NANOS = TimeUnit.SECONDS.toNanos(1);
    private final LongAdder waits = new LongAdder();
    private final LongAdder waitedNanos = new LongAdder();

    public CapacityQueue(int maxSize, Clock clock) {
        if (maxSize < 1) {
            throw new IllegalArgumentException("maxSize must be at least 1, was " + maxSize);
        }
        this.maxSize = maxSize;
        this.clock = clock;
    }

    /** {@link #await(Object, Priority, BooleanSupplier, Instant)} at normal priority, for a waiter of its own. */
    public Outcome await(BooleanSupplier hasRoom, Instant deadline) throws InterruptedException {
        return await(new Object(), Priority.NORMAL, hasRoom, deadline);
    }

    /** {@link #await(Object, Priority, BooleanSupplier, Instant)} for a waiter of its own. */
    public Outcome await(Priority priority, BooleanSupplier hasRoom, Instant deadline) throws InterruptedException {
        return await(new Object(), priority, hasRoom, deadline);
    }

    /**
     * Waits in line, behind those of higher or the same priority who came earlier, until, first in line,
     * {@code hasRoom} says yes; or until {@code deadline} has passed. A waiter that leaves with room is being
     * dispatched: the next in line waits until it has taken its room ({@link #dispatched}, or a second at most),
     * since the room it saw is still free until then and the next would see it too.
     *
     * @param waiter who waits, to say {@link #dispatched} with
     * @throws InterruptedException when the waiting thread is interrupted; it has then left the line
     */
    public Outcome await(Object waiter, Priority priority, BooleanSupplier hasRoom, Instant deadline)
            throws InterruptedException {
        lock.lock();
        try {
            if (line.size() >= maxSize) {
                return Outcome.FULL;
            }
            Place me = new Place(priority, arrivals++);
            line.add(me);
            // a newcomer ahead of the one who was first: that one must let it go, and wakes only on a signal
            changed.signalAll();
            long started = System.nanoTime();
            try {
                while (true) {
                    if (line.first() == me && !dispatchInProgress() && hasRoom.getAsBoolean()) {
                        dispatching = waiter;
                        dispatchStarted = System.nanoTime();
                        return Outcome.ROOM;
                    }
                    if (!clock.instant().isBefore(deadline)) {
                        return Outcome.TIMED_OUT;
                    }
                    // woken by wake(); the timeout only guards against a gateway that stopped calling it
                    changed.await(1, TimeUnit.SECONDS);
                }
            } finally {
                line.remove(me);
                waits.increment();
                waitedNanos.add(System.nanoTime() - started);
                changed.signalAll();   // the next in line may go now
            }
        } finally {
            lock.unlock();
        }
    }

    /** The waiter that last left with room has taken it (or found it gone): the next in line may go. */
    public void dispatched(Object waiter) {
        lock.lock();
        try {
            if (dispatching == waiter) {
                dispatching = null;
                changed.signalAll();
            }
        } finally {
            lock.unlock();
        }
    }

    private boolean dispatchInProgress() {
        return dispatching != null && System.nanoTime() - dispatchStarted < LONGEST_DISPATCH_NANOS;
    }

    /** Room may have come (time passed, a key cooled down, a call gave tokens back): the line looks again. */
    public void wake() {
        lock.lock();
        try {
            if (!line.isEmpty()) {
                changed.signalAll();
            }
        } finally {
            lock.unlock();
        }
    }

    /** Requests waiting now. */
    public int waiting() {
        lock.lock();
        try {
            return line.size();
        } finally {
            lock.unlock();
        }
    }

    /** Requests waiting now that would go before a newcomer of {@code priority}: those of it or higher. */
    public int waitingAhead(Priority priority) {
        lock.lock();
        try {
            return (int) line.stream().filter(place -> place.priority().compareTo(priority) <= 0).count();
        } finally {
            lock.unlock();
        }
    }

    /** Requests that have waited in line, however their wait ended. */
    public long waits() {
        return waits.sum();
    }

    /** Their mean wait in milliseconds, 0 before the first. */
    public double averageWaitMs() {
        long n = waits.sum();
        return n == 0 ? 0 : waitedNanos.sum() / 1e6 / n;
    }

    public int maxSize() {
        return maxSize;
    }
}
