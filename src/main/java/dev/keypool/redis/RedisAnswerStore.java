package dev.keypool.redis;

import java.time.Duration;
import java.util.Base64;
import java.util.Optional;

import dev.keypool.routing.AnswerStore;
import dev.keypool.routing.CachedAnswer;
import io.lettuce.core.SetArgs;

/**
 * The response cache the instances share (design §16 {@code cache}): one Redis string per entry under
 * {@code <keyPrefix>:cache:<hash>}, {@code <stored at ms>:<body in Base64>}, expiring with the entry. The key is a
 * hash and the value only the provider's answer, bounded by the cache's largest entry. A read waits at most
 * {@code redis.timeout}; while Redis is down every read misses and writes are dropped.
 */
public final class RedisAnswerStore implements AnswerStore {

    private final RedisLink redis;

    public RedisAnswerStore(RedisLink redis) {
        this.redis = redis;
    }

    @Override
    public Optional<CachedAnswer> get(String key) {
        return redis.call(r -> r.get(redis.key("cache", key))).flatMap(RedisAnswerStore::parse);
    }

    @Override
    public void put(String key, CachedAnswer answer, Duration keepFor) {
        if (keepFor.toMillis() <= 0) {
            return;
        }
        String value = answer.storedAtMillis() + ":" + Base64.getEncoder().encodeToString(answer.body());
        redis.send(r -> r.set(redis.key("cache", key), value, SetArgs.Builder.px(keepFor.toMillis())));
    }

    private static Optional<CachedAnswer> parse(String value) {
        int colon = value.indexOf(':');
        if (colon < 1) {
            return Optional.empty();
        }
        try {
            return Optional.of(new CachedAnswer(Base64.getDecoder().decode(value.substring(colon + 1)),
                    Long.parseLong(value.substring(0, colon))));
        } catch (IllegalArgumentException e) {
            // not an entry this code wrote: a miss
            return Optional.empty();
        }
    }
}
