package dev.keypool.pool;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;

import org.junit.jupiter.api.Test;

import static dev.keypool.pool.StrategyTesting.shares;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

class WeightedRandomStrategyTest {

    private final ApiKey a = new ApiKey("sk-a", "a", 5);
    private final ApiKey b = new ApiKey("sk-b", "b", 3);
    private final ApiKey c = new ApiKey("sk-c", "c", 2);
    private final List<ApiKey> keys = List.of(a, b, c);
    private final WeightedRandomStrategy strategy = new WeightedRandomStrategy(new SplittableRandom(42));

    @Test
    void should_pick_in_proportion_to_weight() {
        var shares = shares(strategy, keys, key -> true, 2_000);

        assertThat(shares.get(a)).isCloseTo(50.0, within(4.0));
        assertThat(shares.get(b)).isCloseTo(30.0, within(4.0));
        assertThat(shares.get(c)).isCloseTo(20.0, within(4.0));
    }

    @Test
    void should_pick_only_eligible_keys_in_proportion_to_their_weights() {
        var shares = shares(strategy, keys, key -> key != b, 2_000);

        assertThat(shares).doesNotContainKey(b);
        // a and c share everything 5:2
        assertThat(shares.get(a)).isCloseTo(71.4, within(4.0));
        assertThat(shares.get(c)).isCloseTo(28.6, within(4.0));
    }

    @Test
    void should_pick_nothing_when_no_key_is_eligible() {
        assertThat(strategy.pick(keys, key -> false, ApiKey::weight)).isEmpty();
    }

    @Test
    void should_pick_in_proportion_to_weight_with_the_default_thread_local_random() {
        // unseeded, so a different draw each run: with 20,000 picks a share's standard deviation is under 0.4 points
        var shares = shares(new WeightedRandomStrategy(), keys, key -> true, 20_000);

        assertThat(shares.get(a)).isCloseTo(50.0, within(4.0));
        assertThat(shares.get(b)).isCloseTo(30.0, within(4.0));
        assertThat(shares.get(c)).isCloseTo(20.0, within(4.0));
    }

    @Test
    void should_draw_by_the_effective_weight_it_is_given() {
        Map<ApiKey, Double> effective = Map.of(a, 1.0, b, 0.0, c, 3.0);
        Map<ApiKey, Integer> counts = new HashMap<>();
        for (int i = 0; i < 4_000; i++) {
            counts.merge(strategy.pick(keys, key -> true, effective::get).orElseThrow(), 1, Integer::sum);
        }

        assertThat(counts).doesNotContainKey(b);
        assertThat(counts.get(c) / 40.0).isCloseTo(75.0, within(3.0));
    }
}
