package dev.keypool.store;

/**
 * The ids of SQLite's request log, made from each row's time: {@code ts << 20} plus a sequence within its millisecond.
 * The table's own b-tree (its rowid) is then in time order, so a range of time is a range of ids: the admin queries,
 * the spend read back at start and the retention's DELETE read it by id, and no index on {@code ts} costs each row a
 * second b-tree insert on the gateway's CPU (docs/decisions.md, "The request log on SQLite: what a row costs").
 * {@code id >> 20 == ts} for every row, so a range by id is exact.
 *
 * <p>The sequence of each of the last {@value #SLOTS} milliseconds seen is kept here: rows reach the writer almost in
 * time order, a few milliseconds apart at most. A millisecond no longer kept (a row held back for seconds, a clock
 * set back, a database written by an earlier start) may already have rows: its next id is then read from the table
 * ({@link #afterStored}), which the writer asks for whenever an id it was given turns out taken. Not thread-safe: one
 * writer at a time, as SQLite takes one.
 */
final class TimeIds {

    /** Bits of an id below the millisecond: room for 1,048,576 rows in one millisecond; ts up to 2^43 (year 2248). */
    static final int SEQUENCE_BITS = 20;
    static final long SEQUENCE_LIMIT = 1L << SEQUENCE_BITS;
    private static final int SLOTS = 4096;

    private final long[] millis = new long[SLOTS];
    private final long[] next = new long[SLOTS];

    TimeIds() {
        java.util.Arrays.fill(millis, Long.MIN_VALUE);
    }

    /** The first id of millisecond {@code epochMs}: ids of rows at or after it are at or above it. */
    static long first(long epochMs) {
        return epochMs << SEQUENCE_BITS;
    }

    /** An id for a row of time {@code ts}: the next of its millisecond, or its first when that millisecond is new here. */
    long next(long ts) {
        int slot = (int) (ts & (SLOTS - 1));
        if (millis[slot] != ts) {
            millis[slot] = ts;
            next[slot] = 0;
        }
        return id(ts, next[slot]++);
    }

    /**
     * An id for a row of time {@code ts} after {@code highest}, the highest id the table holds in that millisecond (or
     * none, {@code null}): the sequence goes on from there.
     */
    long afterStored(long ts, Long highest) {
        long sequence = highest == null ? 0 : (highest - first(ts)) + 1;
        int slot = (int) (ts & (SLOTS - 1));
        millis[slot] = ts;
        next[slot] = sequence + 1;
        return id(ts, sequence);
    }

    private static long id(long ts, long sequence) {
        if (sequence >= SEQUENCE_LIMIT) {
            throw new IllegalStateException("more than " + SEQUENCE_LIMIT + " request-log rows in one millisecond");
        }
        return first(ts) + sequence;
    }
}
