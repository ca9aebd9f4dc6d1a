package dev.keypool.breaker;

/** The state of a channel's breaker, as {@link ChannelBreaker} decides it. */
public enum BreakerState {
    CLOSED,
    OPEN,
    HALF_OPEN
}
