package dev.keypool.window;

import java.time.Duration;

import dev.keypool.testing.MutableClock;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class SlidingWindowTest {

    private final MutableClock clock = new MutableClock();

    @Test
    void should_count_calls_failures_and_latency_inside_the_window() {
        SlidingWindow window = new SlidingWindow(Duration.ofSeconds(60), clock);
        window.record(false, 100);
        window.record(true, 300);

        SlidingWindow.Snapshot s = window.snapshot();
        assertThat(s.calls()).isEqualTo(2);
        assertThat(s.failures()).isEqualTo(1);
        assertThat(s.failureRatePercent()).isEqualTo(50.0);
        assertThat(s.averageLatencyMs()).isEqualTo(200.0);
    }

    @Test
    void should_forget_samples_older_than_the_window() {
        SlidingWindow window = new SlidingWindow(Duration.ofSeconds(60), clock);
        window.record(true, 10);
        clock.advance(Duration.ofSeconds(30));
        window.record(false, 10);
        clock.advance(Duration.ofSeconds(31));

        assertThat(window.snapshot().calls()).isEqualTo(1);
        assertThat(window.snapshot().failures()).isZero();

        clock.advance(Duration.ofSeconds(60));
        assertThat(window.snapshot().calls()).isZero();
        assertThat(window.snapshot().failureRatePercent()).isZero();
    }

    @Test
    void should_reuse_a_bucket_after_a_full_turn_without_old_counts() {
        SlidingWindow window = new SlidingWindow(Duration.ofSeconds(10), 10, clock);
        window.record(true, 5);
        clock.advance(Duration.ofSeconds(10));
        window.record(false, 5);

        assertThat(window.snapshot().calls()).isEqualTo(1);
        assertThat(window.snapshot().failures()).isZero();
    }
}
