package dev.keypool.pool;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The round robin at the positions of a rotation gateway instances share (design §11): a pick is a function of its
 * position, so two strategies fed alternate positions of one counter rotate as one.
 */
class SharedPositionRoundRobinTest {

    private final ApiKey a = new ApiKey("sk-a", "a", 1);
    private final ApiKey b = new ApiKey("sk-b", "b", 1);
    private final ApiKey c = new ApiKey("sk-c", "c", 1);
    private final ApiKey d = new ApiKey("sk-d", "d", 1);

    @Test
    void should_rotate_as_one_when_two_strategies_take_turns_on_one_counter() {
        AtomicLong counter = new AtomicLong();
        Rotation shared = () -> OptionalLong.of(counter.getAndIncrement());
        RoundRobinStrategy first = new RoundRobinStrategy(shared);
        RoundRobinStrategy second = new RoundRobinStrategy(shared);
        List<ApiKey> keys = List.of(a, b, c, d);

        List<ApiKey> picks = new ArrayList<>();
        for (int i = 0; i < 8; i++) {
            picks.add((i % 2 == 0 ? first : second).pick(keys, key -> true, ApiKey::weight).orElseThrow());
        }

        // each on its own would start at a: a, a, b, b, …
        assertThat(picks).containsExactly(a, b, c, d, a, b, c, d);
    }

    @Test
    void should_give_each_key_exactly_its_weight_in_every_period() {
        ApiKey five = new ApiKey("sk-5", "five", 5);
        ApiKey three = new ApiKey("sk-3", "three", 3);
        ApiKey two = new ApiKey("sk-2", "two", 2);
        List<ApiKey> keys = List.of(five, three, two);

        for (long start : new long[] {0, 7, 1_000_003}) {
            Map<String, Integer> counts = new TreeMap<>();
            for (long p = start; p < start + 10; p++) {
                counts.merge(RoundRobinStrategy.at(p, keys, new double[] {5.0, 3.0, 2.0}).label(), 1, Integer::sum);
            }
            assertThat(counts).containsExactlyInAnyOrderEntriesOf(Map.of("five", 5, "three", 3, "two", 2));
        }
    }

    @Test
    void should_share_a_missing_keys_positions_evenly_among_the_others() {
        AtomicLong counter = new AtomicLong();
        RoundRobinStrategy strategy = new RoundRobinStrategy(() -> OptionalLong.of(counter.getAndIncrement()));
        List<ApiKey> keys = List.of(a, b, c, d);

        Map<String, Integer> counts = new TreeMap<>();
        for (int i = 0; i < 300; i++) {
            counts.merge(strategy.pick(keys, key -> key != b, ApiKey::weight).orElseThrow().label(), 1, Integer::sum);
        }

        // not c inheriting b's turns: a third each
        assertThat(counts).containsExactlyInAnyOrderEntriesOf(Map.of("a", 100, "c", 100, "d", 100));
    }

    @Test
    void should_count_a_quarter_weight_as_a_quarter_of_the_turns() {
        List<ApiKey> keys = List.of(a, b);

        Map<String, Integer> counts = new TreeMap<>();
        for (long p = 0; p < 500; p++) {
            counts.merge(RoundRobinStrategy.at(p, keys, new double[] {1.0, 0.25}).label(), 1, Integer::sum);
        }

        assertThat(counts).containsExactlyInAnyOrderEntriesOf(Map.of("a", 400, "b", 100));
    }

    @Test
    void should_fall_back_to_its_own_rotation_without_a_position() {
        RoundRobinStrategy strategy = new RoundRobinStrategy(OptionalLong::empty);
        List<ApiKey> keys = List.of(a, b, c);

        List<ApiKey> picks = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            picks.add(strategy.pick(keys, key -> true, ApiKey::weight).orElseThrow());
        }

        assertThat(picks).containsExactly(a, b, c, a);
    }
}
