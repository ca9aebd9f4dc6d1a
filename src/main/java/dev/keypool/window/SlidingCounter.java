package dev.keypool.window;

import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * A sum over the last {@code window} of time (requests or tokens per minute), kept in one-second buckets. An amount
 * counts for at least the whole window and at most one bucket longer, never less: a provider that enforces the
 * same limit over an exact sliding window then never sees more than the limit. Amounts may be corrected later
 * (a token estimate replaced by the real usage) in the bucket they were first added to. Not thread-safe: its owner
 * guards it.
 */
public final class SlidingCounter {

    private static final long BUCKET_MILLIS = 1000;

    private final long windowBuckets;
    private final long[] bucketEpoch;
    private final long[] amounts;

    public SlidingCounter(Duration window) {
        if (window.toMillis() < BUCKET_MILLIS) {
            throw new IllegalArgumentException("window must be at least a second, was " + window);
        }
        this.windowBuckets = (window.toMillis() + BUCKET_MILLIS - 1) / BUCKET_MILLIS;
        // one bucket more than the window: the current, partly elapsed bucket plus a whole window before it
        this.bucketEpoch = new long[(int) windowBuckets + 1];
        this.amounts = new long[bucketEpoch.length];
        Arrays.fill(bucketEpoch, Long.MIN_VALUE);
    }

    /** Adds {@code amount} (negative to correct an earlier one) at {@code at}; nothing if {@code at} has left the window. */
    public void add(Instant at, Instant now, long amount) {
        int i = bucket(at, now);
        if (i >= 0) {
            amounts[i] += amount;
        }
    }

    /**
     * Raises the bucket of {@code at} to {@code amount} if it holds less (nothing if {@code at} has left the window):
     * a copy of another count of the same window (the one gateway instances share) merges in without counting twice.
     */
    public void atLeast(Instant at, Instant now, long amount) {
        int i = bucket(at, now);
        if (i >= 0) {
            amounts[i] = Math.max(amounts[i], amount);
        }
    }

    /** The slot of {@code at}'s bucket, emptied when it held an older bucket; -1 when {@code at} is out of the window. */
    private int bucket(Instant at, Instant now) {
        long epoch = epoch(at);
        if (!inWindow(epoch, epoch(now))) {
            return -1;
        }
        int i = (int) Math.floorMod(epoch, (long) bucketEpoch.length);
        if (bucketEpoch[i] != epoch) {
            bucketEpoch[i] = epoch;
            amounts[i] = 0;
        }
        return i;
    }

    /** Whether an amount added at {@code at} is in the window at {@code now}: what {@link #add} would count. */
    public boolean counts(Instant at, Instant now) {
        return inWindow(epoch(at), epoch(now));
    }

    /** What each second of the window before {@code now} holds, by epoch second, oldest first; seconds holding nothing left out. */
    public Map<Long, Long> buckets(Instant now) {
        long current = epoch(now);
        Map<Long, Long> buckets = new TreeMap<>();
        for (int i = 0; i < bucketEpoch.length; i++) {
            if (inWindow(bucketEpoch[i], current) && amounts[i] != 0) {
                buckets.put(bucketEpoch[i] * BUCKET_MILLIS / 1000, amounts[i]);
            }
        }
        return buckets;
    }

    /** The sum of what was added within the window before {@code now}. */
    public long sum(Instant now) {
        long current = epoch(now);
        long total = 0;
        for (int i = 0; i < bucketEpoch.length; i++) {
            if (inWindow(bucketEpoch[i], current)) {
                total += amounts[i];
            }
        }
        return Math.max(0, total);
    }

    /** What of the sum added until {@code now} will still be in the window at the later moment {@code then}. */
    public long sumAt(Instant now, Instant then) {
        long current = epoch(now);
        long later = epoch(then);
        long total = 0;
        for (int i = 0; i < bucketEpoch.length; i++) {
            if (inWindow(bucketEpoch[i], current) && inWindow(bucketEpoch[i], later)) {
                total += amounts[i];
            }
        }
        return Math.max(0, total);
    }

    /**
     * The earliest moment the sum drops to {@code atMost} or below as old buckets leave the window (nothing new
     * added); empty when it never does, i.e. when what is in the current bucket alone is more.
     */
    public Optional<Instant> whenAtMost(Instant now, long atMost) {
        long current = epoch(now);
        long total = sum(now);
        if (total <= atMost) {
            return Optional.of(now);
        }
        for (long oldest = current - windowBuckets; oldest <= current; oldest++) {
            int i = (int) Math.floorMod(oldest, (long) bucketEpoch.length);
            if (bucketEpoch[i] == oldest) {
                total -= amounts[i];
            }
            if (total <= atMost) {
                // bucket `oldest` is out of the window once the current bucket is oldest + windowBuckets + 1
                return Optional.of(Instant.ofEpochMilli((oldest + windowBuckets + 1) * BUCKET_MILLIS));
            }
        }
        return Optional.empty();
    }

    private boolean inWindow(long bucket, long current) {
        return bucket >= current - windowBuckets && bucket <= current;
    }

    private static long epoch(Instant at) {
        return Math.floorDiv(at.toEpochMilli(), BUCKET_MILLIS);
    }
}
