package dev.keypool.routing;

import java.time.Clock;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import com.github.benmanes.caffeine.cache.Expiry;

/**
 * The response cache in this process: a Caffeine cache bounded by the bytes of its answers (least recently and
 * frequently used go first), each entry expiring after its own group's {@code ttl + staleFor}, on the gateway's clock
 * (a test moves it).
 */
public final class LocalAnswerStore implements AnswerStore {

    private record Entry(CachedAnswer answer, long keepForNanos) {
    }

    private final Cache<String, Entry> cache;

    /** @param maxBytes the most answer bytes kept at once */
    public LocalAnswerStore(long maxBytes, Clock clock) {
        this.cache = Caffeine.newBuilder()
                .maximumWeight(maxBytes)
                .weigher((String key, Entry e) -> e.answer().body().length + key.length())
                .expireAfter(new Expiry<String, Entry>() {
                    @Override
                    public long expireAfterCreate(String key, Entry e, long now) {
                        return e.keepForNanos();
                    }

                    @Override
                    public long expireAfterUpdate(String key, Entry e, long now, long current) {
                        return e.keepForNanos();
                    }

                    @Override
                    public long expireAfterRead(String key, Entry e, long now, long current) {
                        return current;
                    }
                })
                .ticker(() -> TimeUnit.MILLISECONDS.toNanos(clock.millis()))
                .build();
    }

    /** The Caffeine cache itself, for Camel's {@code caffeine-cache:} endpoint (an operator's look or invalidation). */
    public Cache<String, ?> cache() {
        return cache;
    }

    @Override
    public Optional<CachedAnswer> get(String key) {
        Entry e = cache.getIfPresent(key);
        return e == null ? Optional.empty() : Optional.of(e.answer());
    }

    @Override
    public void put(String key, CachedAnswer answer, Duration keepFor) {
        cache.put(key, new Entry(answer, keepFor.toNanos()));
    }
}
