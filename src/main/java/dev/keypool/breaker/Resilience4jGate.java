package dev.keypool.breaker;

import java.time.Clock;
import java.time.Duration;

import io.github.resilience4j.circuitbreaker.CircuitBreaker;
import io.github.resilience4j.circuitbreaker.CircuitBreakerConfig;

/**
 * The resilience4j breaker the Camel circuitBreaker EIP consults, reduced to a gate: OPEN rejects every call,
 * HALF_OPEN admits {@code halfOpenRequests} calls, CLOSED admits all. {@link ChannelBreaker} decides every
 * transition; this class configures the instance so that it cannot decide on its own where that would matter
 * and moves it to the decided state.
 */
final class Resilience4jGate {

    /** Far enough to never arrive, near enough that Instant and nanosecond arithmetic inside r4j cannot overflow. */
    static final Duration NEVER = Duration.ofDays(3650);

    private final CircuitBreaker circuitBreaker;

    Resilience4jGate(String name, int halfOpenRequests, Clock clock) {
        this.circuitBreaker = CircuitBreaker.of(name, config(halfOpenRequests, clock));
    }

    static CircuitBreakerConfig config(int halfOpenRequests, Clock clock) {
        return CircuitBreakerConfig.custom()
                // CLOSED: a time window whose minimum is never reached, so r4j never evaluates and never opens
                .slidingWindowType(CircuitBreakerConfig.SlidingWindowType.TIME_BASED)
                .slidingWindowSize(1)
                .minimumNumberOfCalls(Integer.MAX_VALUE)
                // OPEN: no scheduler and a wait that never ends, so r4j never moves to HALF_OPEN itself
                // (not even lazily inside tryAcquirePermission, which it does once the wait is over)
                .automaticTransitionFromOpenToHalfOpenEnabled(false)
                .waitDurationInOpenState(NEVER)
                // HALF_OPEN: the probe gate. We decide after at most halfOpenRequests results; should r4j get to
                // judge all of them first, any failure opens (1%), and we confirm or correct that right after
                .permittedNumberOfCallsInHalfOpenState(halfOpenRequests)
                .maxWaitDurationInHalfOpenState(Duration.ZERO)
                .failureRateThreshold(1)
                // no call is ever slow to r4j; latency is our own trigger
                .slowCallRateThreshold(100)
                .slowCallDurationThreshold(NEVER)
                // e.g. a request its tenant's limits refused at its key (decided inside the breaker, design §11): no
                // outcome of the channel, whatever the state
                .ignoreException(failure -> failure instanceof NeutralFailure)
                .clock(clock)
                .build();
    }

    CircuitBreaker circuitBreaker() {
        return circuitBreaker;
    }

    /**
     * Puts the r4j instance into {@code target}, doing nothing when it is there already (a transition to the
     * same state would reset its half-open permits or metrics). CLOSED to HALF_OPEN is not a legal r4j move, so
     * that path goes through OPEN; it only happens if r4j was moved behind our back.
     */
    void moveTo(BreakerState target) {
        CircuitBreaker.State current = circuitBreaker.getState();
        switch (target) {
            case CLOSED -> {
                if (current != CircuitBreaker.State.CLOSED) {
                    circuitBreaker.transitionToClosedState();
                }
            }
            case OPEN -> {
                if (current != CircuitBreaker.State.OPEN) {
                    circuitBreaker.transitionToOpenState();
                }
            }
            case HALF_OPEN -> {
                if (current != CircuitBreaker.State.HALF_OPEN) {
                    if (current != CircuitBreaker.State.OPEN) {
                        circuitBreaker.transitionToOpenState();
                    }
                    circuitBreaker.transitionToHalfOpenState();
                }
            }
        }
    }
}
