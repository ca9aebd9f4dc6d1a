package dev.keypool.config;

import java.time.Duration;

/**
 * How requests wait for quota room instead of failing (design §6 {@code queue:}): at most {@code maxWait} each (0 = they
 * never wait), at most {@code maxSize} at once per gateway.
 */
public record QueueConfig(Duration maxWait, int maxSize) {

    /** The design's example values, for a file without a {@code queue} block. */
    public static final QueueConfig DEFAULT = new QueueConfig(Duration.ofSeconds(10), 2000);
}
