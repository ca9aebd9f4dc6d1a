package dev.keypool.batch;

import java.time.Instant;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The leases of the stores on this instance's disk, in memory: a store only this instance reads has no other member to
 * hand work to, but its leases follow the same rules as the shared store's, so that the beans cannot tell the two
 * apart. Nothing is held at startup: what a stopped gateway left unfinished is claimable at once.
 */
final class Leases {

    private record Held(String owner, Instant until) {
    }

    private final Map<String, Held> held = new ConcurrentHashMap<>();

    /** Takes the lease of {@code id} for {@code owner} if it is free, already the owner's, or run out by {@code now}. */
    boolean claim(String id, String owner, Instant now, Instant until) {
        Held next = new Held(owner, until);
        return held.compute(id, (k, h) -> h == null || h.owner().equals(owner) || !now.isBefore(h.until()) ? next : h) == next;
    }

    /** Whether another member than {@code owner} could claim {@code id} now: free, or another's run out. */
    boolean claimable(String id, String owner, Instant now) {
        Held h = held.get(id);
        return h == null || !h.owner().equals(owner) && !now.isBefore(h.until());
    }

    /** The member whose lease {@code id} is under (run out or not, until another claims it), null for none. */
    String holder(String id) {
        Held h = held.get(id);
        return h == null ? null : h.owner();
    }

    /** Extends every lease {@code owner} holds to {@code until}; returns how many. */
    int renew(String owner, Instant until) {
        int renewed = 0;
        for (Map.Entry<String, Held> e : held.entrySet()) {
            if (e.getValue().owner().equals(owner) && held.replace(e.getKey(), e.getValue(), new Held(owner, until))) {
                renewed++;
            }
        }
        return renewed;
    }

    /** Gives up every lease {@code owner} holds; returns how many. */
    int release(String owner) {
        int released = 0;
        for (Map.Entry<String, Held> e : held.entrySet()) {
            if (e.getValue().owner().equals(owner) && held.remove(e.getKey(), e.getValue())) {
                released++;
            }
        }
        return released;
    }

    void forget(String id) {
        held.remove(id);
    }
}
