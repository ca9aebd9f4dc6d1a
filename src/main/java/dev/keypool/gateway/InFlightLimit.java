package dev.keypool.gateway;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * How many requests the gateway holds at once: past {@link #max()}, or past the cap its {@link HeapPressure} sets when
 * the heap is nearly full, a new request is refused at once (503 {@code overloaded}) instead of queueing without bound
 * until memory runs out. Every {@link #tryEnter()} that returned true must be matched by exactly one {@link #leave()}.
 * Lock-free.
 */
public final class InFlightLimit {

    /**
     * Heap kept per request in flight: a stream over HTTP/1.1, the largest, holds ~20 KB of live heap with its two
     * connections, a plain request over HTTP/2 ~16 KB (live histograms with 9,800 and 10,000 in flight on Temurin 25
     * with the shipped flags: bench/README.md, "Where the memory is"); the rest is room for a cold JVM's larger stacks
     * and for the garbage a full collection has not yet taken.
     */
    public static final long HEAP_BYTES_PER_REQUEST = 25 * 1024;
    /**
     * Part of the heap that requests in flight may use; the rest is the gateway itself (~40 MB) and the young
     * generation (24 MiB with the shipped flags), so that at the default maximum the old generation is about full.
     */
    static final double HEAP_SHARE = 0.8;

    private final int max;
    private final HeapPressure heap;
    private final AtomicInteger inFlight = new AtomicInteger();
    private final AtomicLong refused = new AtomicLong();

    public InFlightLimit(int max) {
        this(max, new HeapPressure(1));
    }

    public InFlightLimit(int max, HeapPressure heap) {
        if (max < 1) {
            throw new IllegalArgumentException("max in flight must be >= 1, was " + max);
        }
        this.max = max;
        this.heap = heap;
    }

    /** The default limit for a JVM whose maximum heap is {@code maxHeapBytes} (Runtime.maxMemory()). */
    public static int sizedFromHeap(long maxHeapBytes) {
        return (int) Math.max(1, Math.min(Integer.MAX_VALUE, (long) (maxHeapBytes * HEAP_SHARE) / HEAP_BYTES_PER_REQUEST));
    }

    /** Takes a place if one is free; false (and counted as refused) when {@link #current()} are in flight. */
    public boolean tryEnter() {
        int bound = current();
        for (int n = inFlight.get(); n < bound; n = inFlight.get()) {
            if (inFlight.compareAndSet(n, n + 1)) {
                return true;
            }
        }
        refused.incrementAndGet();
        return false;
    }

    /** Gives back the place of a request that entered. */
    public void leave() {
        if (inFlight.getAndUpdate(n -> n > 0 ? n - 1 : 0) == 0) {
            throw new IllegalStateException("leave() without a matching tryEnter()");
        }
    }

    public int inFlight() {
        return inFlight.get();
    }

    public int max() {
        return max;
    }

    /** The limit in force now: {@link #max()}, or the heap's cap when that is lower. */
    public int current() {
        return Math.min(max, heap.cap());
    }

    public HeapPressure heap() {
        return heap;
    }

    public long refused() {
        return refused.get();
    }
}
