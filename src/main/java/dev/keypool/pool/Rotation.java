package dev.keypool.pool;

import java.util.OptionalLong;

/**
 * Where a channel's round robin is (design §11): the position of its next pick, counted across every gateway instance
 * that shares the channel, so that instances rotate over the keys as one. A single instance has no such count
 * ({@link #LOCAL}) and rotates by its own {@link RoundRobinStrategy} state. Implementations answer at once, without a
 * round trip: empty when no position is at hand.
 */
@FunctionalInterface
public interface Rotation {

    /** A single instance: no shared position, ever. */
    Rotation LOCAL = OptionalLong::empty;

    /** The next position of the channel's rotation (each handed out once), or empty when none is at hand. */
    OptionalLong next();

    /** Makes each channel's rotation, by the channel's name. */
    @FunctionalInterface
    interface Factory {

        /** Every channel of a single instance. */
        Factory LOCAL = channel -> Rotation.LOCAL;

        Rotation forChannel(String channel);
    }
}
