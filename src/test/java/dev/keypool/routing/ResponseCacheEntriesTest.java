package dev.keypool.routing;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;

import dev.keypool.testing.MutableClock;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** The response cache's two tiers and its entries' ages: fresh within ttl, usable within ttl + staleFor. */
class ResponseCacheEntriesTest {

    private static final CachePolicy POLICY = new CachePolicy(Duration.ofMinutes(1), CachePolicy.When.DETERMINISTIC,
            Duration.ofMinutes(10), false);
    private static final byte[] ANSWER = "{\"choices\":[]}".getBytes(StandardCharsets.UTF_8);

    private final MutableClock clock = new MutableClock();
    private final MapStore shared = new MapStore();
    private final ResponseCache cache = new ResponseCache(new LocalAnswerStore(1 << 20, clock), shared, clock, 1024);

    /** The instances' common store, as Redis keeps it (without expiry). */
    private static final class MapStore implements AnswerStore {
        final Map<String, CachedAnswer> entries = new HashMap<>();

        @Override
        public Optional<CachedAnswer> get(String key) {
            return Optional.ofNullable(entries.get(key));
        }

        @Override
        public void put(String key, CachedAnswer answer, Duration keepFor) {
            entries.put(key, answer);
        }
    }

    @Test
    void should_be_fresh_within_the_ttl_then_only_usable_until_stale_for_has_passed() {
        cache.store("k", ANSWER, POLICY);

        clock.advance(Duration.ofSeconds(59));
        assertThat(cache.fresh("k", POLICY)).map(CachedAnswer::body).contains(ANSWER);
        clock.advance(Duration.ofSeconds(1));
        assertThat(cache.fresh("k", POLICY)).isEmpty();
        assertThat(cache.usable("k", POLICY)).isPresent();
        clock.advance(Duration.ofMinutes(10));
        assertThat(cache.usable("k", POLICY)).isEmpty();
    }

    @Test
    void should_find_another_instances_entry_in_the_shared_store() {
        shared.put("k", new CachedAnswer(ANSWER, clock.millis()), POLICY.keepFor());

        assertThat(cache.fresh("k", POLICY)).map(CachedAnswer::body).contains(ANSWER);
    }

    @Test
    void should_not_keep_an_answer_larger_than_the_largest_entry() {
        assertThat(cache.store("big", new byte[1025], POLICY)).isFalse();
        assertThat(cache.usable("big", POLICY)).isEmpty();
        assertThat(shared.entries).isEmpty();
    }

    @Test
    void should_key_by_scope_and_body_with_a_hash() {
        String a = ResponseCache.key("tenant:a", ANSWER);

        assertThat(a).hasSize(64).isEqualTo(ResponseCache.key("tenant:a", ANSWER.clone()));
        assertThat(ResponseCache.key("tenant:b", ANSWER)).isNotEqualTo(a);
    }

    @Test
    void should_take_only_deterministic_requests_unless_always() {
        assertThat(POLICY.takes(false)).isFalse();
        assertThat(POLICY.takes(true)).isTrue();
        assertThat(new CachePolicy(Duration.ofMinutes(1), CachePolicy.When.ALWAYS, Duration.ZERO, true).takes(false))
                .isTrue();
    }
}
