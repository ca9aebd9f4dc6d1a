package dev.keypool.batch;

/** A client's task or file refused before anything of it was written: its tenant is at one of its batch limits. */
public final class StorageLimitException extends RuntimeException {

    /** Which limit: {@code batch.max-queued-tasks} or {@code batch.max-stored-bytes}. */
    public enum Limit { QUEUED_TASKS, STORED_BYTES }

    private final Limit limit;
    private final long max;

    public StorageLimitException(Limit limit, long max) {
        super(limit + " at its limit of " + max, null, false, false);
        this.limit = limit;
        this.max = max;
    }

    public Limit limit() {
        return limit;
    }

    public long max() {
        return max;
    }
}
