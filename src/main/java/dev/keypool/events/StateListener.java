package dev.keypool.events;

/** Hears every key and breaker state change. Called on the thread that made the change: keep it short. */
@FunctionalInterface
public interface StateListener {

    /** Listens to nothing: for pools and breakers that nobody watches (unit tests). */
    StateListener NONE = change -> { };

    void stateChanged(StateChange change);
}
