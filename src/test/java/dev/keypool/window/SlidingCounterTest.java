package dev.keypool.window;

import java.time.Duration;
import java.time.Instant;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class SlidingCounterTest {

    private final Instant start = Instant.parse("2026-11-30T10:00:00.500Z");
    private final SlidingCounter counter = new SlidingCounter(Duration.ofMinutes(1));

    @Test
    void should_count_an_amount_for_at_least_the_whole_window() {
        counter.add(start, start, 5);

        assertThat(counter.sum(start.plusSeconds(59))).isEqualTo(5);
        assertThat(counter.sum(start.plusSeconds(60))).isEqualTo(5);
        assertThat(counter.sum(start.plusSeconds(61))).isZero();
    }

    @Test
    void should_raise_a_bucket_to_a_shared_amount_without_counting_twice() {
        counter.add(start, start, 3);
        counter.atLeast(start, start.plusSeconds(10), 5);
        counter.atLeast(start.plusSeconds(10), start.plusSeconds(10), 2);
        // a lower shared amount leaves the bucket as it is
        counter.atLeast(start, start.plusSeconds(10), 1);

        assertThat(counter.sum(start.plusSeconds(10))).isEqualTo(7);
        // an amount whose second has left the window is not taken in
        counter.atLeast(start, start.plusSeconds(90), 50);
        assertThat(counter.sum(start.plusSeconds(90))).isZero();
    }

    @Test
    void should_correct_an_amount_in_the_bucket_it_was_added_to() {
        counter.add(start, start, 100);
        counter.add(start.plusSeconds(30), start.plusSeconds(30), 10);
        counter.add(start, start.plusSeconds(40), -60);

        assertThat(counter.sum(start.plusSeconds(40))).isEqualTo(50);
        // the corrected bucket leaves the window on time, the later one stays
        assertThat(counter.sum(start.plusSeconds(61))).isEqualTo(10);
    }

    @Test
    void should_ignore_a_correction_of_an_amount_that_has_left_the_window() {
        counter.add(start, start, 100);
        counter.add(start, start.plusSeconds(90), -100);

        assertThat(counter.sum(start.plusSeconds(90))).isZero();
        counter.add(start.plusSeconds(90), start.plusSeconds(90), 7);
        assertThat(counter.sum(start.plusSeconds(90))).isEqualTo(7);
    }

    @Test
    void should_tell_what_will_still_be_counted_at_a_later_moment() {
        counter.add(start, start, 3);
        counter.add(start.plusSeconds(20), start.plusSeconds(20), 2);
        Instant now = start.plusSeconds(30);

        assertThat(counter.sumAt(now, now)).isEqualTo(5);
        assertThat(counter.sumAt(now, Instant.parse("2026-11-30T10:01:00.999Z"))).isEqualTo(5);
        assertThat(counter.sumAt(now, Instant.parse("2026-11-30T10:01:01Z"))).isEqualTo(2);
        assertThat(counter.sumAt(now, Instant.parse("2026-11-30T10:01:21Z"))).isZero();
    }

    @Test
    void should_tell_when_the_sum_drops_to_a_level() {
        counter.add(start, start, 3);
        counter.add(start.plusSeconds(20), start.plusSeconds(20), 2);
        Instant now = start.plusSeconds(30);

        assertThat(counter.whenAtMost(now, 5)).contains(now);
        assertThat(counter.whenAtMost(now, 2)).contains(Instant.parse("2026-11-30T10:01:01Z"));
        assertThat(counter.whenAtMost(now, 0)).contains(Instant.parse("2026-11-30T10:01:21Z"));
        // at those moments the sum really is that low, and a moment before it is not
        assertThat(counter.sum(Instant.parse("2026-11-30T10:01:01Z"))).isEqualTo(2);
        assertThat(counter.sum(Instant.parse("2026-11-30T10:01:00.999Z"))).isEqualTo(5);
    }
}
