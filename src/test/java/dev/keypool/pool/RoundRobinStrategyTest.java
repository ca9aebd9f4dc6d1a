package dev.keypool.pool;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;

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
            picks.add(strategy.pick(keys, key -> key != b, ApiKey::weight).orElseThrow());
        }

        // never b, and still a rotation over the others rather than one key every time
        assertThat(picks).containsOnly(a, c).contains(a, c);
    }

    @Test
    void should_pick_nothing_when_no_key_is_eligible() {
        assertThat(strategy.pick(keys, key -> false, ApiKey::weight)).isEmpty();
    }

    @Test
    void should_pick_nothing_from_no_keys() {
        assertThat(strategy.pick(List.of(), key -> true, ApiKey::weight)).isEmpty();
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

    @Test
    void should_give_5_3_2_weights_exactly_50_30_20_picks_in_100() {
        ApiKey five = new ApiKey("sk-5", "five", 5);
        ApiKey three = new ApiKey("sk-3", "three", 3);
        ApiKey two = new ApiKey("sk-2", "two", 2);

        Map<ApiKey, Double> shares = StrategyTesting.shares(strategy, List.of(five, three, two), key -> true, 100);

        assertThat(shares).containsEntry(five, 50.0).containsEntry(three, 30.0).containsEntry(two, 20.0);
    }

    @Test
    void should_spread_a_heavy_key_between_the_others_as_nginx_does() {
        ApiKey heavy = new ApiKey("sk-heavy", "heavy", 5);
        List<ApiKey> weighted = List.of(heavy, b, c);
        List<ApiKey> picks = new ArrayList<>();
        for (int i = 0; i < 7; i++) {
            picks.add(strategy.pick(weighted, key -> true, ApiKey::weight).orElseThrow());
        }

        // nginx's documented sequence for weights 5, 1, 1: no run of five in a row
        assertThat(picks).containsExactly(heavy, heavy, b, heavy, c, heavy, heavy);
    }

    @Test
    void should_share_evenly_among_the_eligible_keys_whichever_are_not() {
        List<ApiKey> five = List.of(new ApiKey("sk-k0", null, 1), new ApiKey("sk-k1", null, 1),
                new ApiKey("sk-k2", null, 1), new ApiKey("sk-k3", null, 1), new ApiKey("sk-k4", null, 1));
        // every way of leaving out two of five keys, the two ineligible ones next to each other included
        for (int x = 0; x < 5; x++) {
            for (int y = x + 1; y < 5; y++) {
                ApiKey out1 = five.get(x);
                ApiKey out2 = five.get(y);
                RoundRobinStrategy fresh = new RoundRobinStrategy();
                List<ApiKey> picks = new ArrayList<>();
                for (int i = 0; i < 300; i++) {
                    picks.add(fresh.pick(five, key -> key != out1 && key != out2, ApiKey::weight).orElseThrow());
                }
                for (int from = 0; from + 100 <= picks.size(); from++) {
                    Map<ApiKey, Long> counts = picks.subList(from, from + 100).stream()
                            .collect(Collectors.groupingBy(k -> k, Collectors.counting()));
                    assertThat(counts).doesNotContainKeys(out1, out2).hasSize(3);
                    assertThat(counts.values()).allSatisfy(n -> assertThat(n).isBetween(33L, 34L));
                }
            }
        }
    }

    @Test
    void should_follow_the_effective_weight_it_is_given_not_the_configured_one() {
        Map<ApiKey, Double> effective = Map.of(a, 3.0, b, 1.0, c, 0.0);

        Map<ApiKey, Double> shares = new HashMap<>();
        for (int i = 0; i < 100; i++) {
            shares.merge(strategy.pick(keys, key -> true, effective::get).orElseThrow(), 1.0, Double::sum);
        }

        assertThat(shares).containsEntry(a, 75.0).containsEntry(b, 25.0).doesNotContainKey(c);
    }

    private ApiKey pickAny() {
        return strategy.pick(keys, key -> true, ApiKey::weight).orElseThrow();
    }
}
