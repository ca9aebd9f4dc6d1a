package dev.keypool.redis;

/**
 * Whether this instance shares its state with other gateway instances (design §11), as the {@code shared-state-watch}
 * route sees it: {@link #check()} runs every half second and notices Redis going away and coming back.
 */
public interface SharedState {

    /** One instance alone: nothing to watch. */
    SharedState LOCAL = () -> { };

    /** Connects when not connected, notices a lost or emptied Redis, and writes this instance's state back to it. */
    void check();
}
