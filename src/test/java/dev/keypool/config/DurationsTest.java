package dev.keypool.config;

import java.time.Duration;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

class DurationsTest {

    @ParameterizedTest(name = "{0} = {1} ms")
    @CsvSource({"500ms, 500", "60s, 60000", "5m, 300000", "1h, 3600000", "30d, 2592000000", "30, 30000", "' 45s ', 45000", "0, 0"})
    void should_parse_every_unit_and_bare_seconds(String text, long millis) {
        assertThat(Durations.parse(text)).isEqualTo(Duration.ofMillis(millis));
    }

    @ParameterizedTest(name = "''{0}''")
    @ValueSource(strings = {"soon", "", "-5s", "1.5s", "5 m", "5w", "5S", "s", "99999999999999999999s", "9999999999999999h"})
    void should_reject_anything_else_naming_the_text(String text) {
        assertThatIllegalArgumentException().isThrownBy(() -> Durations.parse(text))
                .withMessage("invalid duration '" + text + "' (use e.g. 500ms, 30s, 5m)");
    }

    @Test
    void should_reject_null() {
        assertThatIllegalArgumentException().isThrownBy(() -> Durations.parse(null))
                .withMessageContaining("invalid duration");
    }

    @ParameterizedTest(name = "{0} ms -> {1}")
    @CsvSource({"500, 500ms", "1500, 1500ms", "1000, 1s", "60000, 60s", "90000, 90s", "300000, 5m",
            "3600000, 60m", "5400000, 90m", "7200000, 2h", "0, 0s"})
    void should_format_in_the_notation_it_parses(long millis, String text) {
        assertThat(Durations.format(Duration.ofMillis(millis))).isEqualTo(text);
        assertThat(Durations.parse(text)).isEqualTo(Duration.ofMillis(millis));
    }
}
