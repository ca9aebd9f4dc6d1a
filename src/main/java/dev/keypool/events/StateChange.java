package dev.keypool.events;

import java.time.Instant;
import java.util.Map;

/**
 * A change of a key's or a channel breaker's state, published when it happens, once (an alert is one too: its
 * subject goes from quiet to firing). Its message is the line
 * that was logged for it (design §5), so that anything listening (admin events, metrics, shared state) says what
 * the log says.
 */
public interface StateChange {

    Instant at();

    /** The channel the key or breaker belongs to. */
    String channel();

    /** The state before, e.g. a key's {@code ACTIVE} or a breaker's {@code OPEN}. */
    Enum<?> fromState();

    /** The state after; the same as before when only a deadline moved or an operator took over. */
    Enum<?> toState();

    /** {@link #fromState()} by name. */
    default String from() {
        return fromState().name();
    }

    /** {@link #toState()} by name. */
    default String to() {
        return toState().name();
    }

    /** The log line of this change, naming keys by fingerprint only. */
    String message();

    /**
     * What this kind of change adds to its event ({@link Event#details()}), in order, e.g. {@code key} and its
     * fingerprint; none by default.
     */
    default Map<String, String> details() {
        return Map.of();
    }
}
