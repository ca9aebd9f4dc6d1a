package dev.keypool.redis;

import java.time.Duration;

/**
 * Whether this instance shares its state with other gateway instances (design §11), as the {@code shared-state-watch}
 * route sees it: {@link #check()} runs every half second and notices Redis going away and coming back.
 */
public interface SharedState {

    /** One instance alone: nothing to watch. */
    SharedState LOCAL = () -> { };

    /** Connects when not connected, notices a lost or emptied Redis, and writes this instance's state back to it. */
    void check();

    /** How long this instance has gone on alone so far, Redis unreachable: zero while shared (and alone by design). */
    default Duration aloneFor() {
        return Duration.ZERO;
    }

    /** All the time this instance went on alone since it started, the current stretch included. */
    default Duration aloneInTotal() {
        return Duration.ZERO;
    }
}
