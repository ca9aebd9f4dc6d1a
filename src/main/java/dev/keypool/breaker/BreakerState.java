package dev.keypool.breaker;

/** The state of a channel's breaker as KeyPool decides it (the resilience4j instance only mirrors it). */
public enum BreakerState {
    CLOSED,
    OPEN,
    HALF_OPEN
}
