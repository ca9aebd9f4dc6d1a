package dev.keypool.batch;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The bytes each tenant keeps under {@code state.dir/batch} (async tasks, uploaded files, batch output and error
 * files), against {@code batch.max-stored-bytes}. What a client sends is reserved before it is written, and refused
 * past the limit; what the gateway itself produces for a tenant (a task's answer, a batch's output) is counted but
 * never refused, so that no result is lost. A gateway without tenants counts everything as one.
 */
public final class TenantStorage {

    private static final String NO_TENANT = "";

    private final long maxBytes;
    private final Map<String, AtomicLong> used = new ConcurrentHashMap<>();

    public TenantStorage(long maxBytes) {
        if (maxBytes < 1) {
            throw new IllegalArgumentException("must be at least 1, was " + maxBytes);
        }
        this.maxBytes = maxBytes;
    }

    /** Counts {@code bytes} more for {@code owner} if that keeps it within the limit; false (nothing counted) if not. */
    public boolean reserve(String owner, long bytes) {
        AtomicLong counter = counter(owner);
        while (true) {
            long now = counter.get();
            if (now + bytes > maxBytes) {
                return false;
            }
            if (counter.compareAndSet(now, now + bytes)) {
                return true;
            }
        }
    }

    /** Counts {@code bytes} more (or fewer, when negative) for {@code owner}, whatever the limit. */
    public void add(String owner, long bytes) {
        counter(owner).addAndGet(bytes);
    }

    public long used(String owner) {
        AtomicLong counter = used.get(key(owner));
        return counter == null ? 0 : counter.get();
    }

    public long maxBytes() {
        return maxBytes;
    }

    private AtomicLong counter(String owner) {
        return used.computeIfAbsent(key(owner), k -> new AtomicLong());
    }

    private static String key(String owner) {
        return owner == null ? NO_TENANT : owner;
    }
}
