package dev.keypool.config;

import dev.keypool.breaker.BreakerTrigger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import static dev.keypool.config.ConfigFixtures.breakerWith;
import static dev.keypool.config.ConfigFixtures.channelWith;
import static dev.keypool.config.ConfigFixtures.parse;
import static dev.keypool.config.ConfigFixtures.problemsOf;
import static org.assertj.core.api.Assertions.assertThat;

class BreakerValidationTest {

    @Test
    void should_reject_an_unknown_trigger_and_list_the_known_ones() {
        assertThat(problemsOf(breakerWith("triggers: [latency, slow]"))).containsExactly(
                "channels[0].breaker.triggers[1]: unknown trigger 'slow' "
                        + "(use pool_exhausted, error_rate, latency, consecutive_fail)");
    }

    @Test
    void should_accept_any_subset_of_triggers_including_none() {
        assertThat(parse(breakerWith("triggers: [consecutive_fail]")).channels().get(0).breaker().triggers())
                .containsExactly(BreakerTrigger.CONSECUTIVE_FAIL);
        assertThat(parse(breakerWith("triggers: []")).channels().get(0).breaker().triggers()).isEmpty();
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
            "triggers: latency              | channels[0].breaker.triggers: must be a list",
            "errorRateThreshold: 0          | channels[0].breaker.errorRateThreshold: must be > 0 and <= 100",
            "errorRateThreshold: 100.5      | channels[0].breaker.errorRateThreshold: must be > 0 and <= 100",
            "errorRateThreshold: high       | channels[0].breaker.errorRateThreshold: must be a number",
            "errorRateThreshold: Infinity   | channels[0].breaker.errorRateThreshold: must be a number",
            "errorRateWindow: 1 minute      | channels[0].breaker.errorRateWindow: invalid duration '1 minute' (use e.g. 500ms, 30s, 5m)",
            "minimumCalls: 0                | channels[0].breaker.minimumCalls: must be >= 1",
            "latencyThresholdMs: 0          | channels[0].breaker.latencyThresholdMs: must be >= 1",
            "latencyWindow: 0s              | channels[0].breaker.latencyWindow: must be > 0",
            "consecutiveFailThreshold: 0    | channels[0].breaker.consecutiveFailThreshold: must be >= 1",
            "recoveryTimeout: later         | channels[0].breaker.recoveryTimeout: invalid duration 'later' (use e.g. 500ms, 30s, 5m)",
            "halfOpenRequests: 0            | channels[0].breaker.halfOpenRequests: must be >= 1",
            "halfOpenSuccess: 0             | channels[0].breaker.halfOpenSuccess: must be >= 1",
            "reopenDelay: 0                 | channels[0].breaker.reopenDelay: must be > 0",
            "errorRate: 30                  | channels[0].breaker.errorRate: unknown field"})
    void should_check_the_breaker_settings(String field, String problem) {
        assertThat(problemsOf(breakerWith(field))).containsExactly(problem);
    }

    @Test
    void should_accept_an_error_rate_of_exactly_one_hundred_percent() {
        assertThat(parse(breakerWith("errorRateThreshold: 100")).channels().get(0).breaker().errorRateThreshold())
                .isEqualTo(100.0);
    }

    @Test
    void should_require_no_more_half_open_successes_than_probes() {
        assertThat(problemsOf(breakerWith("halfOpenRequests: 2\nhalfOpenSuccess: 3")))
                .containsExactly("channels[0].breaker.halfOpenSuccess: must be between 1 and halfOpenRequests (2)");
    }

    @Test
    void should_check_half_open_successes_against_the_default_number_of_probes() {
        assertThat(problemsOf(breakerWith("halfOpenSuccess: 4")))
                .containsExactly("channels[0].breaker.halfOpenSuccess: must be between 1 and halfOpenRequests (3)");
    }

    @Test
    void should_not_compare_half_open_successes_with_an_invalid_number_of_probes() {
        assertThat(problemsOf(breakerWith("halfOpenRequests: many\nhalfOpenSuccess: 4")))
                .containsExactly("channels[0].breaker.halfOpenRequests: must be an integer");
    }

    @Test
    void should_require_the_breaker_to_be_a_mapping() {
        assertThat(problemsOf(channelWith("breaker: [latency]"))).containsExactly("channels[0].breaker: must be a mapping");
    }
}
