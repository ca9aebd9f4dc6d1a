package dev.keypool.events;

import java.time.Instant;

/**
 * A change of a key's or a channel breaker's state, published when it happens, once. Its message is the line
 * that was logged for it (SPEC §5), so that anything listening (admin events, metrics, shared state) says what
 * the log says.
 */
public interface StateChange {

    Instant at();

    /** The channel the key or breaker belongs to. */
    String channel();

    /** The state before and after, by name: {@code ACTIVE}, {@code COOLING}, {@code OPEN} … */
    String from();

    String to();

    /** The log line of this change, naming keys by fingerprint only. */
    String message();
}
