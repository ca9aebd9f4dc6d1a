package dev.keypool.breaker;

import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.atomic.AtomicBoolean;

import dev.keypool.events.StateListener;
import dev.keypool.testing.MutableClock;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * OPEN -> HALF_OPEN -> CLOSED or OPEN again, driven the way the channel route drives it: the breaker is asked to
 * admit a visit, then told its outcome once.
 */
class ChannelBreakerRecoveryTest {

    private static final Duration LATENCY = Duration.ofMillis(300);

    private final MutableClock clock = new MutableClock();
    private final AtomicBoolean activeKey = new AtomicBoolean(true);
    private final ChannelBreaker breaker = new ChannelBreaker("zhipu", Settings.spec().build(), activeKey::get, clock, StateListener.NONE);

    @Test
    void should_stay_open_before_the_recovery_timeout() {
        Instant tripTime = trip();

        clock.advance(Duration.ofSeconds(29).plusMillis(999));

        assertThat(breaker.state()).isEqualTo(BreakerState.OPEN);
        assertThat(breaker.nextAttemptAt()).contains(tripTime.plusSeconds(30));
        assertThat(breaker.admits()).isFalse();
    }

    @Test
    void should_go_half_open_when_the_recovery_timeout_has_elapsed_and_a_key_is_active() {
        trip();
        clock.advance(Duration.ofSeconds(30));

        assertThat(breaker.state()).isEqualTo(BreakerState.HALF_OPEN);
        assertThat(breaker.nextAttemptAt()).isEmpty();
    }

    @Test
    void should_stay_open_without_an_active_key_and_try_again_after_the_reopen_delay() {
        trip();
        activeKey.set(false);
        clock.advance(Duration.ofSeconds(30));

        assertThat(breaker.state()).isEqualTo(BreakerState.OPEN);
        assertThat(breaker.nextAttemptAt()).contains(clock.instant().plusSeconds(60));
        assertThat(breaker.admits()).isFalse();

        activeKey.set(true);
        clock.advance(Duration.ofSeconds(59));
        assertThat(breaker.state()).isEqualTo(BreakerState.OPEN); // a key came back, but the retry is not due

        clock.advance(Duration.ofSeconds(1));
        assertThat(breaker.state()).isEqualTo(BreakerState.HALF_OPEN);
    }

    @Test
    void should_admit_exactly_half_open_requests_probes() {
        trip();
        assertThat(breaker.admits()).isFalse(); // OPEN
        clock.advance(Duration.ofSeconds(30));
        breaker.state();

        assertThat(breaker.admits()).isTrue();
        assertThat(breaker.admits()).isTrue();
        assertThat(breaker.admits()).isTrue();
        assertThat(breaker.admits()).isFalse();
    }

    @Test
    void should_close_after_two_of_three_probes() {
        halfOpen();

        probe(true);
        assertThat(breaker.state()).isEqualTo(BreakerState.HALF_OPEN);
        probe(true);

        assertThat(breaker.state()).isEqualTo(BreakerState.CLOSED);
        assertThat(breaker.admits()).isTrue();
        assertThat(breaker.figures().trippedBy()).isNull();
    }

    @Test
    void should_close_after_failure_success_success() {
        halfOpen();

        probe(false);
        probe(true);
        probe(true);

        assertThat(breaker.state()).isEqualTo(BreakerState.CLOSED);
    }

    @Test
    void should_reopen_right_after_the_second_failure_of_success_failure_failure() {
        halfOpen();

        probe(true);
        probe(false);
        assertThat(breaker.state()).isEqualTo(BreakerState.HALF_OPEN);
        probe(false);

        assertThat(breaker.state()).isEqualTo(BreakerState.OPEN);
        assertThat(breaker.nextAttemptAt()).contains(clock.instant().plusSeconds(60));
        assertThat(breaker.admits()).isFalse();
    }

    @Test
    void should_reopen_after_two_failures_when_two_of_three_are_needed() {
        halfOpen();

        probe(false);
        probe(false);

        assertThat(breaker.state()).isEqualTo(BreakerState.OPEN);
        // the third probe was never needed: two failures of three leave no way to two successes
        assertThat(breaker.admits()).isFalse();
    }

    @Test
    void should_wait_the_reopen_delay_after_failed_probes_and_then_probe_again() {
        halfOpen();
        probe(false);
        probe(false);

        clock.advance(Duration.ofSeconds(59));
        assertThat(breaker.state()).isEqualTo(BreakerState.OPEN);
        clock.advance(Duration.ofSeconds(1));
        assertThat(breaker.state()).isEqualTo(BreakerState.HALF_OPEN);

        probe(true);
        probe(true);
        assertThat(breaker.state()).isEqualTo(BreakerState.CLOSED);
    }

    @Test
    void should_count_pool_exhausted_as_a_failed_probe() {
        halfOpen();

        breaker.onPoolExhausted();
        breaker.onPoolExhausted();

        assertThat(breaker.state()).isEqualTo(BreakerState.OPEN);
    }

    @Test
    void should_leave_key_failures_to_the_probe_outcome_in_half_open() {
        halfOpen();

        breaker.onKeyFailure("3f2a000000000000", 7);

        assertThat(breaker.state()).isEqualTo(BreakerState.HALF_OPEN);
        assertThat(breaker.figures().halfOpenProbes()).isZero();
    }

    @Test
    void should_show_probe_progress_in_the_figures() {
        halfOpen();
        probe(true);
        probe(false);

        BreakerFigures figures = breaker.figures();
        assertThat(figures.state()).isEqualTo(BreakerState.HALF_OPEN);
        assertThat(figures.halfOpenSuccesses()).isEqualTo(1);
        assertThat(figures.halfOpenProbes()).isEqualTo(2);
        assertThat(figures.nextAttemptAt()).isNull();
        assertThat(figures.trippedBy()).isEqualTo("pool_exhausted");
    }

    @Test
    void should_count_a_late_result_of_the_third_probe_in_the_closed_window() {
        halfOpen();
        assertThat(breaker.admits()).isTrue(); // third probe admitted, still running
        probe(true);
        probe(true);

        breaker.onFailure(LATENCY);

        assertThat(breaker.state()).isEqualTo(BreakerState.CLOSED);
        assertThat(breaker.figures().callsInWindow()).isEqualTo(1);
    }

    @Test
    void should_close_with_fresh_windows() {
        halfOpen();
        // recorded while HALF_OPEN (the trip already emptied the windows): only the close can forget it
        breaker.onKeyFailure("3f2a000000000000", 4);
        assertThat(breaker.figures().maxKeyConsecutiveFailures()).isEqualTo(4);
        probe(true);
        probe(true);

        BreakerFigures figures = breaker.figures();
        assertThat(figures.state()).isEqualTo(BreakerState.CLOSED);
        assertThat(figures.maxKeyConsecutiveFailures()).isZero();
        assertThat(figures.callsInWindow()).isZero();
        assertThat(figures.poolExhaustedCount()).isZero();
        assertThat(figures.halfOpenProbes()).isZero();
    }

    @Test
    void should_need_a_single_success_with_one_of_one() {
        ChannelBreaker single = new ChannelBreaker("zhipu", Settings.spec().halfOpen(1, 1).build(), () -> true, clock, StateListener.NONE);
        single.onPoolExhausted();
        clock.advance(Duration.ofSeconds(30));
        assertThat(single.state()).isEqualTo(BreakerState.HALF_OPEN);
        assertThat(single.admits()).isTrue();
        assertThat(single.admits()).isFalse();

        single.onFailure(LATENCY);

        assertThat(single.state()).isEqualTo(BreakerState.OPEN);
    }

    @Test
    void should_hold_a_forced_open_until_forced_closed() {
        breaker.forceOpen("maintenance");
        assertThat(breaker.state()).isEqualTo(BreakerState.OPEN);
        assertThat(breaker.nextAttemptAt()).isEmpty();
        assertThat(breaker.figures().trippedBy()).isEqualTo("operator: maintenance");
        assertThat(breaker.admits()).isFalse();

        clock.advance(Duration.ofHours(5));
        assertThat(breaker.state()).isEqualTo(BreakerState.OPEN);

        breaker.forceClosed();
        assertThat(breaker.state()).isEqualTo(BreakerState.CLOSED);
        assertThat(breaker.admits()).isTrue();
    }

    @Test
    void should_force_closed_from_half_open() {
        halfOpen();
        probe(false);

        breaker.forceClosed();

        assertThat(breaker.state()).isEqualTo(BreakerState.CLOSED);
    }

    @Test
    void should_give_the_probe_of_a_visit_without_an_outcome_to_another_request() {
        halfOpen();
        assertThat(breaker.admits()).isTrue();
        assertThat(breaker.admits()).isTrue();
        assertThat(breaker.admits()).isTrue();
        assertThat(breaker.admits()).as("all three probes out").isFalse();

        breaker.onNoOutcome(); // e.g. its client left

        assertThat(breaker.admits()).isTrue();
        assertThat(breaker.admits()).isFalse();
        assertThat(breaker.figures().halfOpenProbes()).isZero();
    }

    @Test
    void should_count_results_and_probes_out_together_against_half_open_requests() {
        halfOpen();
        probe(true);
        assertThat(breaker.admits()).isTrue();
        assertThat(breaker.admits()).isTrue();

        assertThat(breaker.admits()).as("one result and two probes out").isFalse();
        breaker.onSuccess(LATENCY);
        assertThat(breaker.state()).isEqualTo(BreakerState.CLOSED);
    }

    private Instant trip() {
        Instant now = clock.instant();
        breaker.onPoolExhausted();
        assertThat(breaker.state()).isEqualTo(BreakerState.OPEN);
        return now;
    }

    private void halfOpen() {
        if (breaker.state() == BreakerState.CLOSED) {
            trip();
        }
        clock.advance(Duration.ofSeconds(30));
        assertThat(breaker.state()).isEqualTo(BreakerState.HALF_OPEN);
    }

    /** One probe request through the channel route: admitted, then its outcome. */
    private void probe(boolean success) {
        assertThat(breaker.admits()).isTrue();
        if (success) {
            breaker.onSuccess(LATENCY);
        } else {
            breaker.onFailure(LATENCY);
        }
    }
}
