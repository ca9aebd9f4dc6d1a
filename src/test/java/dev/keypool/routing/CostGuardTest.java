package dev.keypool.routing;

import java.util.Arrays;
import java.util.List;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** The cost guard's filter of a walk (design §16): nothing costlier than maxPriceRatio × the first step. */
class CostGuardTest {

    @Test
    void should_skip_steps_costing_more_than_the_ratio_times_the_first() {
        boolean[] allowed = CostGuard.affordable(2.0, List.of(1.0, 2.0, 2.1, 0.5));

        assertThat(allowed).containsExactly(true, true, false, true);
    }

    @Test
    void should_allow_everything_without_a_ratio() {
        assertThat(CostGuard.affordable(null, List.of(1.0, 100.0))).containsExactly(true, true);
    }

    @Test
    void should_never_skip_an_unpriced_step_nor_guard_an_unpriced_first_one() {
        assertThat(CostGuard.affordable(1.0, Arrays.asList(1.0, null, 3.0))).containsExactly(true, true, false);
        assertThat(CostGuard.affordable(1.0, Arrays.asList(null, 3.0))).containsExactly(true, true);
    }

    @Test
    void should_not_skip_a_step_at_exactly_the_ratio_despite_decimal_rounding() {
        // 0.1 + 0.2 is 0.30000000000000004 in binary floating point
        assertThat(CostGuard.affordable(3.0, List.of(0.1, 0.1 + 0.2))).containsExactly(true, true);
    }
}
