package dev.keypool.events;

/**
 * Hears every key and breaker state change, on the thread that made it and without any lock of the pool or breaker
 * held: keep it short. A breaker's changes arrive one at a time and in order; two changes of one key made at the
 * same moment on two threads may arrive in either order (each says the state it moved from).
 */
@FunctionalInterface
public interface StateListener {

    /** Listens to nothing: for pools and breakers that nobody watches (unit tests). */
    StateListener NONE = change -> { };

    void stateChanged(StateChange change);
}
