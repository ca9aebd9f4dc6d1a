package dev.keypool.breaker;

import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import dev.keypool.events.StateListener;
import dev.keypool.testing.MutableClock;
import io.github.resilience4j.circuitbreaker.CircuitBreaker;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * OPEN -> HALF_OPEN -> CLOSED or OPEN again, driven the way the Camel EIP drives it: the r4j gate is asked for a
 * permit, a success reaches the breaker before r4j records it, a failure after.
 */
class ChannelBreakerRecoveryTest {

    private static final Duration LATENCY = Duration.ofMillis(300);

    private final MutableClock clock = new MutableClock();
    private final AtomicBoolean activeKey = new AtomicBoolean(true);
    private final ChannelBreaker breaker = new ChannelBreaker("zhipu", Settings.spec().build(), activeKey::get, clock, StateListener.NONE);
    private final CircuitBreaker cb = breaker.circuitBreaker();

    @Test
    void should_stay_open_before_the_recovery_timeout() {
        Instant tripTime = trip();

        clock.advance(Duration.ofSeconds(29).plusMillis(999));

        assertThat(breaker.state()).isEqualTo(BreakerState.OPEN);
        assertThat(breaker.nextAttemptAt()).contains(tripTime.plusSeconds(30));
        assertThat(cb.tryAcquirePermission()).isFalse();
    }

    @Test
    void should_go_half_open_when_the_recovery_timeout_has_elapsed_and_a_key_is_active() {
        trip();
        clock.advance(Duration.ofSeconds(30));

        assertThat(breaker.state()).isEqualTo(BreakerState.HALF_OPEN);
        assertThat(breaker.nextAttemptAt()).isEmpty();
        assertThat(cb.getState()).isEqualTo(CircuitBreaker.State.HALF_OPEN);
    }

    @Test
    void should_stay_open_without_an_active_key_and_try_again_after_the_reopen_delay() {
        trip();
        activeKey.set(false);
        clock.advance(Duration.ofSeconds(30));

        assertThat(breaker.state()).isEqualTo(BreakerState.OPEN);
        assertThat(breaker.nextAttemptAt()).contains(clock.instant().plusSeconds(60));
        assertThat(cb.tryAcquirePermission()).isFalse();

        activeKey.set(true);
        clock.advance(Duration.ofSeconds(59));
        assertThat(breaker.state()).isEqualTo(BreakerState.OPEN); // a key came back, but the retry is not due

        clock.advance(Duration.ofSeconds(1));
        assertThat(breaker.state()).isEqualTo(BreakerState.HALF_OPEN);
    }

    @Test
    void should_gate_with_r4j_exactly_half_open_requests_probes() {
        trip();
        assertThat(cb.tryAcquirePermission()).isFalse(); // OPEN
        clock.advance(Duration.ofSeconds(30));
        breaker.state();

        assertThat(cb.tryAcquirePermission()).isTrue();
        assertThat(cb.tryAcquirePermission()).isTrue();
        assertThat(cb.tryAcquirePermission()).isTrue();
        assertThat(cb.tryAcquirePermission()).isFalse();
    }

    @Test
    void should_close_after_two_of_three_probes() {
        halfOpen();

        probe(true);
        assertThat(breaker.state()).isEqualTo(BreakerState.HALF_OPEN);
        probe(true);

        assertThat(breaker.state()).isEqualTo(BreakerState.CLOSED);
        assertThat(cb.getState()).isEqualTo(CircuitBreaker.State.CLOSED);
        assertThat(cb.tryAcquirePermission()).isTrue();
        assertThat(breaker.figures().trippedBy()).isNull();
    }

    @Test
    void should_close_after_failure_success_success() {
        halfOpen();

        probe(false);
        probe(true);
        probe(true);

        assertThat(breaker.state()).isEqualTo(BreakerState.CLOSED);
        assertThat(cb.getState()).isEqualTo(CircuitBreaker.State.CLOSED);
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
        assertThat(cb.getState()).isEqualTo(CircuitBreaker.State.OPEN);
        assertThat(cb.tryAcquirePermission()).isFalse();
    }

    @Test
    void should_reopen_after_two_failures_when_two_of_three_are_needed() {
        halfOpen();

        probe(false);
        probe(false);

        assertThat(breaker.state()).isEqualTo(BreakerState.OPEN);
        assertThat(cb.getState()).isEqualTo(CircuitBreaker.State.OPEN);
        // the third permit was never used, and r4j had not judged yet: the reopen is our own decision
        assertThat(cb.tryAcquirePermission()).isFalse();
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
        assertThat(cb.tryAcquirePermission()).isTrue(); // third probe admitted, still running
        probe(true);
        probe(true);

        cb.onError(100, TimeUnit.MILLISECONDS, new IOException("503"));
        breaker.onFailure(LATENCY);

        assertThat(breaker.state()).isEqualTo(BreakerState.CLOSED);
        assertThat(breaker.figures().callsInWindow()).isEqualTo(1);
        assertThat(cb.getState()).isEqualTo(CircuitBreaker.State.CLOSED);
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
        assertThat(single.circuitBreaker().tryAcquirePermission()).isTrue();
        assertThat(single.circuitBreaker().tryAcquirePermission()).isFalse();

        single.onFailure(LATENCY);

        assertThat(single.state()).isEqualTo(BreakerState.OPEN);
    }

    @Test
    void should_hold_a_forced_open_until_forced_closed() {
        breaker.forceOpen("maintenance");
        assertThat(breaker.state()).isEqualTo(BreakerState.OPEN);
        assertThat(breaker.nextAttemptAt()).isEmpty();
        assertThat(breaker.figures().trippedBy()).isEqualTo("operator: maintenance");
        assertThat(cb.tryAcquirePermission()).isFalse();

        clock.advance(Duration.ofHours(5));
        assertThat(breaker.state()).isEqualTo(BreakerState.OPEN);

        breaker.forceClosed();
        assertThat(breaker.state()).isEqualTo(BreakerState.CLOSED);
        assertThat(cb.tryAcquirePermission()).isTrue();
    }

    @Test
    void should_force_closed_from_half_open() {
        halfOpen();
        probe(false);

        breaker.forceClosed();

        assertThat(breaker.state()).isEqualTo(BreakerState.CLOSED);
        assertThat(cb.getState()).isEqualTo(CircuitBreaker.State.CLOSED);
    }

    @Test
    void should_put_r4j_back_in_step_on_the_next_transition_when_it_moved_on_its_own() {
        trip();
        cb.transitionToClosedState(); // someone else touched the shared instance
        clock.advance(Duration.ofSeconds(30));

        assertThat(breaker.state()).isEqualTo(BreakerState.HALF_OPEN);

        assertThat(cb.getState()).isEqualTo(CircuitBreaker.State.HALF_OPEN);
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

    /** One probe request through the EIP: permit, then the outcome in the order the Camel layer reports it. */
    private void probe(boolean success) {
        assertThat(cb.tryAcquirePermission()).isTrue();
        if (success) {
            breaker.onSuccess(LATENCY);
            cb.onSuccess(LATENCY.toMillis(), TimeUnit.MILLISECONDS);
        } else {
            cb.onError(LATENCY.toMillis(), TimeUnit.MILLISECONDS, new IOException("upstream 503"));
            breaker.onFailure(LATENCY);
        }
    }
}
