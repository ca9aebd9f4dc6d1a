package dev.keypool.pool;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

class SelectionStrategyTest {

    @Test
    void should_list_the_four_names() {
        assertThat(SelectionStrategy.NAMES)
                .containsExactly("round-robin", "weighted-random", "least-in-flight", "latency-weighted");
    }

    @Test
    void should_create_strategy_for_each_name() {
        assertThat(SelectionStrategy.named("round-robin")).isInstanceOf(RoundRobinStrategy.class);
        assertThat(SelectionStrategy.named("weighted-random")).isInstanceOf(WeightedRandomStrategy.class);
        assertThat(SelectionStrategy.named("least-in-flight")).isInstanceOf(LeastInFlightStrategy.class);
        assertThat(SelectionStrategy.named("latency-weighted")).isInstanceOf(LatencyWeightedStrategy.class);
    }

    @Test
    void should_create_a_new_strategy_per_call() {
        assertThat(SelectionStrategy.named("round-robin")).isNotSameAs(SelectionStrategy.named("round-robin"));
    }

    @Test
    void should_reject_unknown_name() {
        assertThat(catchThrowable(() -> SelectionStrategy.named("fastest")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("fastest")
                .hasMessageContaining("round-robin");
    }

    @Test
    void should_reject_missing_name() {
        assertThat(catchThrowable(() -> SelectionStrategy.named(null))).isInstanceOf(IllegalArgumentException.class);
    }
}
