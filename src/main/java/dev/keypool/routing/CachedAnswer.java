package dev.keypool.routing;

import java.time.Duration;

/**
 * A provider's 200 answer to a non-stream chat request, as the response cache keeps it: the body's bytes (never a key
 * or token: only what the provider answered) and when it was stored.
 */
public record CachedAnswer(byte[] body, long storedAtMillis) {

    /** Young enough to answer at once. */
    public boolean freshAt(long nowMillis, CachePolicy policy) {
        return nowMillis - storedAtMillis < policy.ttl().toMillis();
    }

    /** Past its ttl, but within {@code staleFor} of it: answers only when no target can. */
    public boolean usableAt(long nowMillis, CachePolicy policy) {
        return nowMillis - storedAtMillis < policy.keepFor().toMillis();
    }

    public Duration age(long nowMillis) {
        return Duration.ofMillis(Math.max(0, nowMillis - storedAtMillis));
    }
}
