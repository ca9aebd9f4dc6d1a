package dev.keypool.pool;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;

import static dev.keypool.pool.PoolTesting.concurrently;
import static org.assertj.core.api.Assertions.assertThat;

class RoundRobinStrategyTest {

    private final ApiKey a = new ApiKey("sk-a", "a", 1);
    private final ApiKey b = new ApiKey("sk-b", "b", 1);
    private final ApiKey c = new ApiKey("sk-c", "c", 1);
    private final List<ApiKey> keys = List.of(a, b, c);
    private final RoundRobinStrategy strategy = new RoundRobinStrategy();

    @Test
    void should_rotate_through_keys_in_order() {
        assertThat(List.of(pickAny(), pickAny(), pickAny(), pickAny())).containsExactly(a, b, c, a);
    }

    @Test
    void should_skip_ineligible_keys() {
        List<ApiKey> picks = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
            picks.add(strategy.pick(keys, key -> key != b).orElseThrow());
        }

        // never b, and still a rotation over the others rather than one key every time
        assertThat(picks).containsOnly(a, c).contains(a, c);
    }

    @Test
    void should_pick_nothing_when_no_key_is_eligible() {
        assertThat(strategy.pick(keys, key -> false)).isEmpty();
    }

    @Test
    void should_pick_nothing_from_no_keys() {
        assertThat(strategy.pick(List.of(), key -> true)).isEmpty();
    }

    @Test
    void should_share_picks_exactly_evenly_under_concurrency() throws Exception {
        Map<ApiKey, AtomicInteger> counts = new ConcurrentHashMap<>();

        concurrently(8, t -> {
            for (int i = 0; i < 375; i++) {   // 8 × 375 = 3,000 picks
                counts.computeIfAbsent(pickAny(), k -> new AtomicInteger()).incrementAndGet();
            }
        });

        assertThat(counts).hasSize(3);
        assertThat(counts.values()).allSatisfy(count -> assertThat(count.get()).isEqualTo(1_000));
    }

    private ApiKey pickAny() {
        return strategy.pick(keys, key -> true).orElseThrow();
    }
}
