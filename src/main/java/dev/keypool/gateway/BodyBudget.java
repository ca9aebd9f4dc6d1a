package dev.keypool.gateway;

import java.util.concurrent.atomic.AtomicLong;

/**
 * How many bytes of request bodies the gateway holds at once: each request with a body takes its declared length
 * (or its path's whole limit when it does not say) before a byte of it is read, and gives it back when it is
 * answered. Past the budget a request is refused at once (503 {@code overloaded}), so that many large legal bodies
 * arriving together cannot fill the heap. Lock-free.
 */
public final class BodyBudget {

    /** Part of the heap request bodies may take when no budget is set: their parsed form takes as much again. */
    static final double HEAP_SHARE = 0.25;

    private final long max;
    private final AtomicLong held = new AtomicLong();

    public BodyBudget(long max) {
        if (max < 1) {
            throw new IllegalArgumentException("body budget must be >= 1 byte, was " + max);
        }
        this.max = max;
    }

    /** A budget of a quarter of {@code maxHeapBytes}. */
    public static long sizedFromHeap(long maxHeapBytes) {
        return Math.max(1, (long) (maxHeapBytes * HEAP_SHARE));
    }

    /**
     * Takes {@code bytes} from the budget; false, taking nothing, when they do not fit. A body larger than the whole
     * budget still fits when nothing else is held, so that a budget below a path's limit cannot refuse every body.
     */
    public boolean tryTake(long bytes) {
        while (true) {
            long now = held.get();
            if (now > 0 && now + bytes > max) {
                return false;
            }
            if (held.compareAndSet(now, now + bytes)) {
                return true;
            }
        }
    }

    /** Gives back what one {@link #tryTake} took. */
    public void giveBack(long bytes) {
        held.addAndGet(-bytes);
    }

    public long held() {
        return held.get();
    }

    public long max() {
        return max;
    }
}
