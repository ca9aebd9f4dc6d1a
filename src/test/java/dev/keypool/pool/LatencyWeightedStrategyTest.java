package dev.keypool.pool;

import java.time.Duration;
import java.time.ZoneOffset;
import java.util.List;
import java.util.SplittableRandom;

import dev.keypool.events.StateListener;
import dev.keypool.testing.MutableClock;
import org.junit.jupiter.api.Test;

import static dev.keypool.pool.PoolTesting.acquire;
import static dev.keypool.pool.StrategyTesting.shares;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

class LatencyWeightedStrategyTest {

    private final MutableClock clock = new MutableClock();
    private final ApiKey fast = new ApiKey("sk-fast", "fast", 1);
    private final ApiKey slow = new ApiKey("sk-slow", "slow", 1);
    private final ApiKey fresh = new ApiKey("sk-fresh", "fresh", 1);
    private final List<ApiKey> keys = List.of(fast, slow, fresh);
    // latency samples only come in through a pool
    private final KeyPool pool = new KeyPool(PoolSettings.builder("chat")
            .cooling(Cooling.fixed(Duration.ofSeconds(30))).disableAfter(3).clock(clock).build(),
            keys);
    private final LatencyWeightedStrategy strategy = new LatencyWeightedStrategy(new SplittableRandom(7));

    @Test
    void should_send_ten_times_slower_key_clearly_less_but_some_traffic() {
        answered(fast, 100);
        answered(slow, 1_000);

        var shares = shares(strategy, keys, key -> key != fresh, 2_000);

        assertThat(shares.get(slow)).isPositive().isLessThan(shares.get(fast) / 5);
        assertThat(shares.get(slow)).isCloseTo(100.0 / 11, within(4.0));
    }

    @Test
    void should_score_key_without_samples_at_mean_latency_of_the_others() {
        answered(fast, 100);
        answered(slow, 300);

        var shares = shares(strategy, keys, key -> true, 2_000);

        // scores 1/100, 1/300 and 1/200 (the mean) → 54.5 %, 18.2 %, 27.3 %
        assertThat(shares.get(fresh)).isCloseTo(27.3, within(4.0));
    }

    @Test
    void should_fall_back_to_weights_without_any_samples() {
        ApiKey heavy = new ApiKey("sk-heavy", "heavy", 3);
        ApiKey light = new ApiKey("sk-light", "light", 1);

        var shares = shares(strategy, List.of(heavy, light), key -> true, 2_000);

        assertThat(shares.get(heavy)).isCloseTo(75.0, within(4.0));
    }

    @Test
    void should_multiply_latency_score_by_weight() {
        ApiKey heavy = new ApiKey("sk-heavy", "heavy", 2);
        ApiKey light = new ApiKey("sk-light", "light", 1);
        KeyPool weighted = new KeyPool(PoolSettings.builder("chat")
                .cooling(Cooling.fixed(Duration.ofSeconds(30))).disableAfter(3).clock(clock).build(),
                List.of(heavy, light));
        acquire(weighted, heavy);
        weighted.outcomes().recordSuccess(heavy, Duration.ofMillis(200), 0, 0);
        acquire(weighted, light);
        weighted.outcomes().recordSuccess(light, Duration.ofMillis(100), 0, 0);

        var shares = shares(strategy, List.of(heavy, light), key -> true, 2_000);

        // 2/200 and 1/100 score the same
        assertThat(shares.get(heavy)).isCloseTo(50.0, within(4.0));
    }

    @Test
    void should_forget_latency_older_than_the_window() {
        answered(fast, 100);
        answered(slow, 1_000);
        clock.advance(Duration.ofSeconds(61));

        var shares = shares(strategy, keys, key -> key != fresh, 2_000);

        assertThat(shares.get(slow)).isCloseTo(50.0, within(4.0));
    }

    @Test
    void should_pick_nothing_when_no_key_is_eligible() {
        assertThat(strategy.pick(keys, key -> false, ApiKey::weight)).isEmpty();
    }

    private void answered(ApiKey key, long latencyMs) {
        acquire(pool, key);
        pool.outcomes().recordSuccess(key, Duration.ofMillis(latencyMs), 0, 0);
    }
}
