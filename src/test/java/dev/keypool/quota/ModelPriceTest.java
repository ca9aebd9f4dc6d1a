package dev.keypool.quota;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

/** cost = uncached prompt × input + cache reads × cacheRead + cache writes × cacheWrite + completion × output. */
class ModelPriceTest {

    @Test
    void should_price_cache_reads_and_writes_at_their_own_rates() {
        ModelPrice price = new ModelPrice(3.0, 15.0, 0.30, 3.75);

        // 1M prompt tokens: 600k read from the cache, 100k written to it, 300k plain; 100k completion
        double cost = price.costUsd(1_000_000, 100_000, 600_000, 100_000);

        assertThat(cost).isCloseTo(0.3 * 3.0 + 0.6 * 0.30 + 0.1 * 3.75 + 0.1 * 15.0, within(1e-9));
    }

    @Test
    void should_price_cached_tokens_as_input_without_cache_rates() {
        ModelPrice price = new ModelPrice(2.0, 4.0);

        assertThat(price.costUsd(1_000_000, 0, 800_000, 100_000)).isCloseTo(2.0, within(1e-9));
    }

    @Test
    void should_price_cache_writes_as_input_when_only_reads_have_a_rate() {
        ModelPrice price = new ModelPrice(2.0, 4.0, 0.5, null);

        assertThat(price.costUsd(1_000_000, 0, 500_000, 500_000)).isCloseTo(0.25 + 1.0, within(1e-9));
    }

    @Test
    void should_never_count_more_cached_tokens_than_the_prompt_has() {
        ModelPrice price = new ModelPrice(2.0, 4.0, 0.5, 10.0);

        // a provider that reports more cached tokens than prompt tokens: no negative uncached part
        assertThat(price.costUsd(100, 0, 150, 50)).isCloseTo(100 * 0.5 / 1_000_000, within(1e-12));
    }

    @Test
    void should_refuse_a_negative_cache_rate() {
        assertThatThrownBy(() -> new ModelPrice(1, 1, -0.1, null)).isInstanceOf(IllegalArgumentException.class);
    }
}
