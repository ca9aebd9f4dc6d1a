package dev.keypool.routing;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Clock;
import java.util.HexFormat;
import java.util.Optional;

/**
 * The response cache of the model groups that set {@code cache:} (design §16): an exact-match cache of non-stream
 * chat answers, looked up in this process first, then in the store the instances share (Redis, when configured), which
 * also fills this process's. Entries are kept for {@code ttl + staleFor}; whether one is fresh or only stale is decided
 * by its age against the asking group's policy.
 */
public final class ResponseCache {

    private final AnswerStore local;
    private final AnswerStore shared;
    private final Clock clock;
    private final int maxEntryBytes;

    /**
     * @param shared        the instances' common store, or {@link AnswerStore#NONE}
     * @param maxEntryBytes the largest answer kept; a bigger one is not cached
     */
    public ResponseCache(AnswerStore local, AnswerStore shared, Clock clock, int maxEntryBytes) {
        this.local = local;
        this.shared = shared;
        this.clock = clock;
        this.maxEntryBytes = maxEntryBytes;
    }

    /**
     * The key of a request: a SHA-256 of its scope (a tenant's name, or nothing when the group shares its entries) and
     * its body without the fields that do not change the answer, so that no prompt or name is kept in the clear.
     */
    public static String key(String scope, byte[] body) {
        try {
            MessageDigest digest = MessageDigest.getInstance("SHA-256");
            digest.update(scope.getBytes(StandardCharsets.UTF_8));
            digest.update((byte) 0);
            return HexFormat.of().formatHex(digest.digest(body));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 not available", e);
        }
    }

    /** An answer young enough to be served at once. */
    public Optional<CachedAnswer> fresh(String key, CachePolicy policy) {
        long now = clock.millis();
        return find(key, policy, now).filter(a -> a.freshAt(now, policy));
    }

    /** An answer to serve when no target can: fresh, or past its ttl by less than {@code staleFor}. */
    public Optional<CachedAnswer> usable(String key, CachePolicy policy) {
        return find(key, policy, clock.millis());
    }

    /** Keeps a 200 answer; false when it is larger than the largest kept. */
    public boolean store(String key, byte[] body, CachePolicy policy) {
        if (body.length > maxEntryBytes) {
            return false;
        }
        CachedAnswer answer = new CachedAnswer(body, clock.millis());
        local.put(key, answer, policy.keepFor());
        shared.put(key, answer, policy.keepFor());
        return true;
    }

    public long nowMillis() {
        return clock.millis();
    }

    private Optional<CachedAnswer> find(String key, CachePolicy policy, long now) {
        Optional<CachedAnswer> here = local.get(key).filter(a -> a.usableAt(now, policy));
        if (here.isPresent()) {
            return here;
        }
        Optional<CachedAnswer> there = shared.get(key).filter(a -> a.usableAt(now, policy));
        there.ifPresent(a -> local.put(key, a, policy.keepFor().minus(a.age(now))));
        return there;
    }
}
