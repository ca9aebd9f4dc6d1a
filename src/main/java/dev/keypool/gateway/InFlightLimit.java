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
     * Live heap a plain request in flight holds, with its provider connection: 27.5–28 KB measured with 9,000–9,700 in
     * flight on Temurin 25 with the shipped flags (its virtual thread's stack ~5 KB, three Camel exchanges with their
     * headers and properties ~4 KB, byte arrays ~3.4 KB; bench/README.md, inflight10k).
     */
    public static final long HEAP_BYTES_PER_REQUEST = 27 * 1024;
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
