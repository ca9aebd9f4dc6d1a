package dev.keypool.gateway;

/**
 * How many requests the heap can hold, learned from what full collections leave behind. {@code keypool.max-in-flight}
 * counts requests at a warm request's footprint, but a request can hold far more: right after startup its virtual
 * thread parks on interpreted frames about three times the size of compiled ones, and a long prompt is held whole. A
 * JVM whose old generation is still nearly full after a full collection spends its time collecting and does not come
 * back (measured: 9,800 requests at once on a cold gateway, bench/README.md, inflight10k), so past {@link #limit} the number of
 * requests in flight at that collection, scaled down to what would fill the old generation to {@link #target}, becomes
 * a cap on new ones. A later full collection below the target lifts it; between the two the cap stays. Requests
 * already in flight are never cut.
 */
public final class HeapPressure {

    /** No cap: only {@code keypool.max-in-flight} applies. */
    public static final int NONE = Integer.MAX_VALUE;

    private final double limit;
    private final double target;
    private volatile int cap = NONE;

    /**
     * @param limit occupancy of the old generation after a full collection (0 to 1) at which the cap is set; 1 or
     *              more turns the pressure off
     */
    public HeapPressure(double limit) {
        if (!(limit > 0)) {
            throw new IllegalArgumentException("keypool.heap-limit must be > 0 (1 turns it off), was " + limit);
        }
        this.limit = limit;
        this.target = limit * 0.8;
    }

    /**
     * What a full collection left: {@code occupancy} of the old generation (used / max) with {@code inFlight} requests
     * held at that moment. Returns the cap now in force ({@link #NONE} when there is none).
     */
    public int afterFullCollection(double occupancy, int inFlight) {
        if (occupancy >= limit && limit < 1 && inFlight > 0) {
            int scaled = (int) Math.max(1, Math.floor(inFlight * target / occupancy));
            cap = Math.min(cap, scaled);
        } else if (occupancy < target) {
            cap = NONE;
        }
        return cap;
    }

    /** The most requests that may be in flight for the heap's sake, {@link #NONE} when it sets no cap. */
    public int cap() {
        return cap;
    }

    public double limit() {
        return limit;
    }
}
