package dev.keypool.breaker;

import java.time.Instant;

import dev.keypool.events.StateChange;

/** A channel's breaker moved from one state to another (or an operator now holds an OPEN breaker open). */
public record BreakerStateChange(Instant at, String channel, BreakerState fromState, BreakerState toState,
                                 String message) implements StateChange {
}
