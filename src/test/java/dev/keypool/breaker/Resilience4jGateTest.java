package dev.keypool.breaker;

import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

import dev.keypool.testing.MutableClock;
import io.github.resilience4j.circuitbreaker.CircuitBreaker;
import io.github.resilience4j.circuitbreaker.CircuitBreaker.State;
import io.github.resilience4j.circuitbreaker.CircuitBreakerConfig;
import io.github.resilience4j.circuitbreaker.IllegalStateTransitionException;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Pins the resilience4j 2.3.0 behaviours the gate relies on, so an upgrade that changes them fails here and
 * not in production.
 */
class Resilience4jGateTest {

    private static final IOException BOOM = new IOException("upstream 503");

    private final MutableClock clock = new MutableClock();
    private final Resilience4jGate gate = new Resilience4jGate("zhipu-breaker", 3, clock);
    private final CircuitBreaker cb = gate.circuitBreaker();

    @Test
    void should_keep_the_configuration_as_built() {
        CircuitBreakerConfig config = cb.getCircuitBreakerConfig();

        // r4j caps minimumNumberOfCalls at the window size only for COUNT_BASED windows
        assertThat(config.getMinimumNumberOfCalls()).isEqualTo(Integer.MAX_VALUE);
        assertThat(config.getSlidingWindowType()).isEqualTo(CircuitBreakerConfig.SlidingWindowType.TIME_BASED);
        assertThat(config.isAutomaticTransitionFromOpenToHalfOpenEnabled()).isFalse();
        assertThat(config.getPermittedNumberOfCallsInHalfOpenState()).isEqualTo(3);
        assertThat(config.getFailureRateThreshold()).isEqualTo(1f);
        assertThat(cb.getName()).isEqualTo("zhipu-breaker");
    }

    @Test
    void should_never_open_by_itself_in_closed_after_many_failures() {
        for (int i = 0; i < 10_000; i++) {
            assertThat(cb.tryAcquirePermission()).isTrue();
            cb.onError(30_000, TimeUnit.MILLISECONDS, BOOM);
            if (i % 1000 == 0) {
                clock.advance(Duration.ofMillis(700)); // spread over several 1 s windows too
            }
        }

        assertThat(cb.getState()).isEqualTo(State.CLOSED);
        assertThat(cb.tryAcquirePermission()).isTrue();
    }

    @Test
    void should_reject_in_open_and_never_move_to_half_open_by_itself() {
        gate.moveTo(BreakerState.OPEN);
        assertThat(cb.tryAcquirePermission()).isFalse();

        // r4j 2.3.0 would turn HALF_OPEN inside tryAcquirePermission once waitDurationInOpenState has passed
        clock.advance(Duration.ofDays(365));

        assertThat(cb.tryAcquirePermission()).isFalse();
        assertThat(cb.getState()).isEqualTo(State.OPEN);
    }

    @Test
    void should_need_the_endless_wait_because_r4j_half_opens_lazily_even_without_automatic_transition() {
        CircuitBreaker plain = CircuitBreaker.of("plain", CircuitBreakerConfig.from(Resilience4jGate.config(3, clock))
                .waitDurationInOpenState(Duration.ofSeconds(30))
                .build());
        plain.transitionToOpenState();
        clock.advance(Duration.ofSeconds(31));

        assertThat(plain.tryAcquirePermission()).isTrue();
        assertThat(plain.getState()).isEqualTo(State.HALF_OPEN);
    }

    @Test
    void should_admit_exactly_the_permitted_calls_in_half_open() {
        gate.moveTo(BreakerState.OPEN);
        gate.moveTo(BreakerState.HALF_OPEN);

        assertThat(cb.tryAcquirePermission()).isTrue();
        assertThat(cb.tryAcquirePermission()).isTrue();
        assertThat(cb.tryAcquirePermission()).isTrue();
        assertThat(cb.tryAcquirePermission()).isFalse();
        assertThat(cb.getState()).isEqualTo(State.HALF_OPEN);
    }

    @Test
    void should_not_refill_half_open_permits_when_moved_to_half_open_again() {
        gate.moveTo(BreakerState.HALF_OPEN); // from CLOSED: goes through OPEN, r4j forbids CLOSED -> HALF_OPEN
        assertThat(cb.tryAcquirePermission()).isTrue();

        gate.moveTo(BreakerState.HALF_OPEN);

        assertThat(cb.tryAcquirePermission()).isTrue();
        assertThat(cb.tryAcquirePermission()).isTrue();
        assertThat(cb.tryAcquirePermission()).isFalse();
    }

    @Test
    void should_refuse_closed_to_half_open_as_a_direct_r4j_transition() {
        assertThatThrownBy(cb::transitionToHalfOpenState).isInstanceOf(IllegalStateTransitionException.class);
    }

    @Test
    void should_open_itself_in_half_open_once_all_probes_recorded_with_one_failure() {
        gate.moveTo(BreakerState.HALF_OPEN);
        recordSuccess();
        recordSuccess();
        assertThat(cb.getState()).isEqualTo(State.HALF_OPEN); // judged only after all 3

        recordFailure();

        assertThat(cb.getState()).isEqualTo(State.OPEN);
        gate.moveTo(BreakerState.OPEN); // our own decision arrives afterwards: must be harmless
        assertThat(cb.getState()).isEqualTo(State.OPEN);
    }

    @Test
    void should_close_itself_in_half_open_only_when_all_probes_succeeded() {
        gate.moveTo(BreakerState.HALF_OPEN);
        recordSuccess();
        recordSuccess();
        recordSuccess();

        assertThat(cb.getState()).isEqualTo(State.CLOSED);
    }

    @Test
    void should_never_count_a_call_as_slow() {
        gate.moveTo(BreakerState.HALF_OPEN);
        for (int i = 0; i < 3; i++) {
            cb.tryAcquirePermission();
            cb.onSuccess(Duration.ofHours(2).toMillis(), TimeUnit.MILLISECONDS);
        }

        assertThat(cb.getState()).isEqualTo(State.CLOSED);
        assertThat(cb.getMetrics().getNumberOfSlowCalls()).isZero();
    }

    @Test
    void should_accept_results_of_calls_that_finish_after_a_transition() {
        gate.moveTo(BreakerState.HALF_OPEN);
        cb.tryAcquirePermission();
        cb.tryAcquirePermission();
        gate.moveTo(BreakerState.OPEN);
        cb.onError(10, TimeUnit.MILLISECONDS, BOOM);
        assertThat(cb.getState()).isEqualTo(State.OPEN);

        gate.moveTo(BreakerState.CLOSED);
        cb.onSuccess(10, TimeUnit.MILLISECONDS);
        assertThat(cb.getState()).isEqualTo(State.CLOSED);
    }

    @Test
    void should_be_idempotent_for_every_target_state() {
        for (BreakerState target : new BreakerState[] {BreakerState.OPEN, BreakerState.OPEN, BreakerState.HALF_OPEN,
                BreakerState.HALF_OPEN, BreakerState.CLOSED, BreakerState.CLOSED, BreakerState.HALF_OPEN,
                BreakerState.OPEN, BreakerState.CLOSED}) {
            gate.moveTo(target);
            assertThat(cb.getState().name()).isEqualTo(target.name());
        }
    }

    private void recordSuccess() {
        assertThat(cb.tryAcquirePermission()).isTrue();
        cb.onSuccess(100, TimeUnit.MILLISECONDS);
    }

    private void recordFailure() {
        assertThat(cb.tryAcquirePermission()).isTrue();
        cb.onError(100, TimeUnit.MILLISECONDS, BOOM);
    }
}
