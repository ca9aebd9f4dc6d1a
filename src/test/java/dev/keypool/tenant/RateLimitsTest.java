package dev.keypool.tenant;

import java.time.Duration;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import static org.assertj.core.api.Assertions.assertThat;

class RateLimitsTest {

    @ParameterizedTest(name = "{0} ms -> {1}")
    @CsvSource({"0, 0s", "20, 20ms", "999, 999ms", "1000, 1s", "1500, 1.5s", "17280, 17.28s", "60000, 1m0s",
            "360000, 6m0s", "90500, 1m30.5s", "3723000, 1h2m3s", "3600000, 1h0m0s"})
    void should_write_durations_as_openai_does(long millis, String text) {
        assertThat(RateLimits.format(Duration.ofMillis(millis))).isEqualTo(text);
    }

    @ParameterizedTest(name = "{0} ns -> {1}")
    @CsvSource({"1, 1ms", "999999999, 1s", "1000000001, 1.001s"})
    void should_round_parts_of_a_millisecond_up(long nanos, String text) {
        assertThat(RateLimits.format(Duration.ofNanos(nanos))).isEqualTo(text);
    }
}
