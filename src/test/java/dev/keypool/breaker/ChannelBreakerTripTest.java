package dev.keypool.breaker;

import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.TimeUnit;

import dev.keypool.events.StateListener;
import dev.keypool.testing.MutableClock;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import static org.assertj.core.api.Assertions.assertThat;

/** CLOSED -> OPEN: each trigger on its own, thresholds, windows, and what a trip resets. */
class ChannelBreakerTripTest {

    private static final Duration FAST = Duration.ofMillis(200);
    private static final Duration SLOW = Duration.ofMillis(20_000);

    private final MutableClock clock = new MutableClock();

    private ChannelBreaker breaker(Settings settings) {
        return new ChannelBreaker("zhipu", settings.build(), () -> true, clock, StateListener.NONE);
    }

    @Test
    void should_start_closed_and_let_every_call_through() {
        ChannelBreaker breaker = breaker(Settings.spec());

        assertThat(breaker.state()).isEqualTo(BreakerState.CLOSED);
        assertThat(breaker.nextAttemptAt()).isEmpty();
        assertThat(breaker.channel()).isEqualTo("zhipu");
        assertThat(breaker.admits()).isTrue();
    }

    @Test
    void should_trip_on_error_rate_only_once_minimum_calls_are_reached() {
        ChannelBreaker breaker = breaker(Settings.spec().only(BreakerTrigger.ERROR_RATE));
        for (int i = 0; i < 9; i++) {
            breaker.onFailure(FAST);
        }
        assertThat(breaker.state()).isEqualTo(BreakerState.CLOSED); // 100% but only 9 of 10 calls

        breaker.onFailure(FAST);

        assertThat(breaker.state()).isEqualTo(BreakerState.OPEN);
        assertThat(breaker.figures().trippedBy()).isEqualTo("error_rate");
    }

    @Test
    void should_trip_on_error_rate_exactly_at_the_threshold() {
        ChannelBreaker breaker = breaker(Settings.spec().only(BreakerTrigger.ERROR_RATE));
        for (int i = 0; i < 7; i++) {
            breaker.onSuccess(FAST);
        }
        breaker.onFailure(FAST);
        breaker.onFailure(FAST);
        assertThat(breaker.state()).isEqualTo(BreakerState.CLOSED);

        breaker.onFailure(FAST); // 3 of 10 = 30%

        assertThat(breaker.state()).isEqualTo(BreakerState.OPEN);
    }

    @Test
    void should_trip_on_error_rate_when_a_success_completes_the_minimum_calls() {
        ChannelBreaker breaker = breaker(Settings.spec().only(BreakerTrigger.ERROR_RATE));
        for (int i = 0; i < 9; i++) {
            breaker.onFailure(FAST);
        }

        breaker.onSuccess(FAST); // 9 of 10 failed

        assertThat(breaker.state()).isEqualTo(BreakerState.OPEN);
    }

    @Test
    void should_stay_closed_below_the_error_rate_threshold() {
        ChannelBreaker breaker = breaker(Settings.spec().only(BreakerTrigger.ERROR_RATE));
        for (int i = 0; i < 100; i++) {
            if (i % 4 == 3) {
                breaker.onFailure(FAST); // 25% < 30%
            } else {
                breaker.onSuccess(FAST);
            }
        }

        assertThat(breaker.state()).isEqualTo(BreakerState.CLOSED);
        assertThat(breaker.figures().errorRatePercent()).isEqualTo(25.0);
    }

    @Test
    void should_forget_failures_older_than_the_error_rate_window() {
        ChannelBreaker breaker = breaker(Settings.spec().only(BreakerTrigger.ERROR_RATE));
        for (int i = 0; i < 9; i++) {
            breaker.onFailure(FAST);
        }
        clock.advance(Duration.ofSeconds(61));

        for (int i = 0; i < 7; i++) {
            breaker.onSuccess(FAST);
        }
        breaker.onFailure(FAST);
        breaker.onFailure(FAST); // 2 of 9 now; counting the old ones it would be 11 of 18

        assertThat(breaker.figures().callsInWindow()).isEqualTo(9);
        breaker.onSuccess(FAST); // 2 of 10 = 20%
        assertThat(breaker.state()).isEqualTo(BreakerState.CLOSED);
    }

    @Test
    void should_trip_on_latency_when_the_average_exceeds_the_threshold() {
        ChannelBreaker breaker = breaker(Settings.spec().only(BreakerTrigger.LATENCY));
        for (int i = 0; i < 9; i++) {
            breaker.onSuccess(SLOW);
        }
        assertThat(breaker.state()).isEqualTo(BreakerState.CLOSED); // waits for minimumCalls as well

        breaker.onSuccess(SLOW);

        assertThat(breaker.state()).isEqualTo(BreakerState.OPEN);
        assertThat(breaker.figures().trippedBy()).isEqualTo("latency");
    }

    @Test
    void should_not_trip_on_latency_equal_to_the_threshold() {
        ChannelBreaker breaker = breaker(Settings.spec().only(BreakerTrigger.LATENCY));
        for (int i = 0; i < 20; i++) {
            breaker.onSuccess(Duration.ofMillis(15_000));
        }

        assertThat(breaker.state()).isEqualTo(BreakerState.CLOSED);
        assertThat(breaker.figures().averageLatencyMs()).isEqualTo(15_000.0);
    }

    @Test
    void should_count_the_latency_of_failed_visits() {
        ChannelBreaker breaker = breaker(Settings.spec().only(BreakerTrigger.LATENCY));
        for (int i = 0; i < 10; i++) {
            breaker.onFailure(Duration.ofSeconds(60)); // timeouts
        }

        assertThat(breaker.state()).isEqualTo(BreakerState.OPEN);
    }

    @Test
    void should_forget_slow_calls_older_than_the_latency_window() {
        ChannelBreaker breaker = breaker(Settings.spec().only(BreakerTrigger.LATENCY));
        for (int i = 0; i < 9; i++) {
            breaker.onSuccess(Duration.ofSeconds(50));
        }
        clock.advance(Duration.ofSeconds(61));

        for (int i = 0; i < 10; i++) {
            breaker.onSuccess(FAST);
        }

        assertThat(breaker.state()).isEqualTo(BreakerState.CLOSED);
        assertThat(breaker.figures().averageLatencyMs()).isEqualTo(200.0);
    }

    @Test
    void should_trip_on_consecutive_fail_in_the_middle_of_a_request() {
        ChannelBreaker breaker = breaker(Settings.spec().only(BreakerTrigger.CONSECUTIVE_FAIL));
        breaker.onKeyFailure("3f2a000000000000", 3);
        breaker.onKeyFailure("9b1c000000000000", 4);
        assertThat(breaker.state()).isEqualTo(BreakerState.CLOSED);
        assertThat(breaker.figures().maxKeyConsecutiveFailures()).isEqualTo(4);

        breaker.onKeyFailure("3f2a000000000000", 5);

        assertThat(breaker.state()).isEqualTo(BreakerState.OPEN);
        assertThat(breaker.admits()).isFalse();
    }

    @Test
    void should_forget_a_key_streak_once_that_key_succeeds() {
        ChannelBreaker breaker = breaker(Settings.spec());
        breaker.onKeyFailure("3f2a000000000000", 4);
        breaker.onKeyFailure("9b1c000000000000", 2);

        breaker.onKeySuccess("3f2a000000000000");

        assertThat(breaker.figures().maxKeyConsecutiveFailures()).isEqualTo(2);
    }

    @Test
    void should_trip_on_pool_exhausted() {
        ChannelBreaker breaker = breaker(Settings.spec().only(BreakerTrigger.POOL_EXHAUSTED));

        breaker.onPoolExhausted();

        assertThat(breaker.state()).isEqualTo(BreakerState.OPEN);
        assertThat(breaker.figures().trippedBy()).isEqualTo("pool_exhausted");
    }

    @ParameterizedTest
    @EnumSource(BreakerTrigger.class)
    void should_not_trip_on_a_disabled_trigger(BreakerTrigger disabled) {
        ChannelBreaker breaker = breaker(Settings.spec().allBut(disabled));

        fire(breaker, disabled);

        assertThat(breaker.state()).isEqualTo(BreakerState.CLOSED);
        assertThat(breaker.admits()).isTrue();
    }

    @ParameterizedTest
    @EnumSource(BreakerTrigger.class)
    void should_trip_on_each_trigger_alone_with_all_enabled(BreakerTrigger trigger) {
        ChannelBreaker breaker = breaker(Settings.spec());

        fire(breaker, trigger);

        assertThat(breaker.state()).isEqualTo(BreakerState.OPEN);
        assertThat(breaker.figures().trippedBy()).isEqualTo(trigger.configName());
    }

    @Test
    void should_set_next_attempt_to_recovery_timeout_and_reset_the_windows_on_trip() {
        ChannelBreaker breaker = breaker(Settings.spec());
        Instant tripTime = clock.instant();
        breaker.onKeyFailure("3f2a000000000000", 2);
        breaker.onSuccess(FAST);
        breaker.onPoolExhausted();

        BreakerFigures figures = breaker.figures();
        assertThat(figures.state()).isEqualTo(BreakerState.OPEN);
        assertThat(figures.nextAttemptAt()).isEqualTo(tripTime.plusSeconds(30));
        assertThat(breaker.nextAttemptAt()).contains(tripTime.plusSeconds(30));
        assertThat(figures.callsInWindow()).isZero();
        assertThat(figures.errorRatePercent()).isZero();
        assertThat(figures.averageLatencyMs()).isZero();
        assertThat(figures.maxKeyConsecutiveFailures()).isZero();
        assertThat(figures.poolExhaustedCount()).isZero();
        assertThat(breaker.admits()).isFalse();
    }

    @Test
    void should_ignore_outcomes_while_open() {
        ChannelBreaker breaker = breaker(Settings.spec());
        Instant tripTime = clock.instant();
        breaker.onPoolExhausted();
        // later outcomes would move nextAttemptAt if they tripped the breaker again
        clock.advance(Duration.ofSeconds(10));

        breaker.onFailure(FAST);
        breaker.onSuccess(SLOW);
        breaker.onPoolExhausted();
        breaker.onKeyFailure("3f2a000000000000", 9);

        BreakerFigures figures = breaker.figures();
        assertThat(figures.state()).isEqualTo(BreakerState.OPEN);
        assertThat(figures.callsInWindow()).isZero();
        assertThat(figures.poolExhaustedCount()).isZero();
        assertThat(figures.nextAttemptAt()).isEqualTo(tripTime.plusSeconds(30));
        assertThat(figures.trippedBy()).isEqualTo("pool_exhausted");
    }

    @Test
    void should_report_the_figures_of_a_closed_breaker() {
        ChannelBreaker breaker = breaker(Settings.spec().only(BreakerTrigger.CONSECUTIVE_FAIL));
        breaker.onSuccess(Duration.ofMillis(100));
        breaker.onSuccess(Duration.ofMillis(300));
        breaker.onFailure(Duration.ofMillis(500));
        breaker.onPoolExhausted();
        breaker.onPoolExhausted();
        breaker.onKeyFailure("3f2a000000000000", 3);

        assertThat(breaker.figures()).isEqualTo(new BreakerFigures(BreakerState.CLOSED, 100.0 / 3, 3, 300.0, 3, 2,
                null, null, 0, 0));
    }

    /** Makes exactly one trigger's condition true and leaves the others' false. */
    static void fire(ChannelBreaker breaker, BreakerTrigger trigger) {
        switch (trigger) {
            case POOL_EXHAUSTED -> breaker.onPoolExhausted();
            case ERROR_RATE -> {
                for (int i = 0; i < 10; i++) {
                    breaker.onFailure(FAST);
                }
            }
            case LATENCY -> {
                for (int i = 0; i < 10; i++) {
                    breaker.onSuccess(SLOW);
                }
            }
            case CONSECUTIVE_FAIL -> breaker.onKeyFailure("3f2a000000000000", 5);
        }
    }
}
