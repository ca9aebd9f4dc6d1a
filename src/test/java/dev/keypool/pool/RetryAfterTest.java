package dev.keypool.pool;

import java.time.Duration;
import java.time.Instant;

import dev.keypool.testing.MutableClock;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.NullAndEmptySource;
import org.junit.jupiter.params.provider.ValueSource;

import static org.assertj.core.api.Assertions.assertThat;

class RetryAfterTest {

    private final MutableClock clock = new MutableClock(Instant.parse("2026-10-21T07:27:00Z"));

    @Test
    void should_parse_delta_seconds() {
        assertThat(RetryAfter.parse("20", clock)).contains(Duration.ofSeconds(20));
    }

    @Test
    void should_ignore_surrounding_whitespace() {
        assertThat(RetryAfter.parse(" 7 ", clock)).contains(Duration.ofSeconds(7));
    }

    @Test
    void should_parse_http_date_relative_to_clock() {
        assertThat(RetryAfter.parse("Wed, 21 Oct 2026 07:28:00 GMT", clock)).contains(Duration.ofSeconds(60));
    }

    @Test
    void should_give_zero_for_http_date_in_the_past() {
        assertThat(RetryAfter.parse("Wed, 21 Oct 2026 07:26:00 GMT", clock)).contains(Duration.ZERO);
    }

    @ParameterizedTest
    @NullAndEmptySource
    @ValueSource(strings = {"  ", "soon", "-5", "1.5", "20s", "99999999999999999999", "Wed, 32 Oct 2026 07:28:00 GMT"})
    void should_give_empty_for_missing_or_garbage(String value) {
        assertThat(RetryAfter.parse(value, clock)).isEmpty();
    }
}
