package dev.keypool.batch;

import java.time.Duration;
import java.time.Instant;

/**
 * This instance as one of the members that share the batches and tasks of one store: its id, written as the owner of
 * each lease it holds, and how long a lease lasts unless its heartbeat renews it. Work is claimed, not assigned: a
 * member that stops renewing (killed, cut off) loses its leases when they run out, and any other member claims them.
 *
 * @param id    unique among the members alive at once: a new one at every start
 * @param lease how long a claim holds without a renewal
 */
public record Claimant(String id, Duration lease) {

    public Claimant {
        if (lease.isNegative() || lease.isZero()) {
            throw new IllegalArgumentException("a lease must last, was " + lease);
        }
    }

    /** When a lease taken or renewed at {@code now} runs out. */
    public Instant leaseUntil(Instant now) {
        return now.plus(lease);
    }
}
