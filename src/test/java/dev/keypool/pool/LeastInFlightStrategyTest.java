package dev.keypool.pool;

import java.time.Duration;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;

import dev.keypool.events.StateListener;
import dev.keypool.testing.MutableClock;
import org.junit.jupiter.api.Test;

import static dev.keypool.pool.PoolTesting.acquire;
import static org.assertj.core.api.Assertions.assertThat;

class LeastInFlightStrategyTest {

    private final ApiKey a = new ApiKey("sk-a", "a", 1);
    private final ApiKey b = new ApiKey("sk-b", "b", 1);
    private final ApiKey c = new ApiKey("sk-c", "c", 1);
    private final List<ApiKey> keys = List.of(a, b, c);
    private final LeastInFlightStrategy strategy = new LeastInFlightStrategy();
    // in-flight counts only move through a pool
    private final KeyPool pool = new KeyPool(PoolSettings.builder("chat")
            .cooling(Cooling.fixed(Duration.ofSeconds(30))).disableAfter(3).clock(new MutableClock()).build(),
            keys);

    @Test
    void should_pick_key_with_fewest_in_flight() {
        acquire(pool, a);
        acquire(pool, a);
        acquire(pool, b);
        acquire(pool, c);
        acquire(pool, c);
        acquire(pool, c);

        for (int i = 0; i < 3; i++) {
            assertThat(strategy.pick(keys, key -> true, ApiKey::weight)).containsSame(b);
        }
    }

    @Test
    void should_break_ties_round_robin() {
        assertThat(List.of(pickAny(), pickAny(), pickAny())).containsExactly(a, b, c);
    }

    @Test
    void should_ignore_less_busy_ineligible_key() {
        acquire(pool, b);
        acquire(pool, c);
        acquire(pool, c);

        // a is idle but ineligible; of the two eligible keys b is the less busy
        for (int i = 0; i < 3; i++) {
            assertThat(strategy.pick(keys, key -> key != a, ApiKey::weight)).containsSame(b);
        }
    }

    @Test
    void should_pick_nothing_when_no_key_is_eligible() {
        assertThat(strategy.pick(keys, key -> false, ApiKey::weight)).isEmpty();
    }

    @Test
    void should_weigh_calls_in_flight_by_effective_weight() {
        acquire(pool, a);
        acquire(pool, a);
        acquire(pool, b);

        // a carries 2 calls at weight 4 (0.5 per weight), b 1 call at weight 1, c 0 calls but weight 0
        Map<ApiKey, Double> effective = Map.of(a, 4.0, b, 1.0, c, 0.0);
        assertThat(strategy.pick(keys, key -> true, effective::get)).containsSame(a);
    }

    private ApiKey pickAny() {
        return strategy.pick(keys, key -> true, ApiKey::weight).orElseThrow();
    }
}
