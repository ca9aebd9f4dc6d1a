package dev.keypool.events;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The listeners of one gateway, handed to every key pool and breaker as a single {@link StateListener}. A
 * listener that throws is logged and skipped: a state change has already happened and must not fail the call
 * that made it.
 */
public final class StateListeners implements StateListener {

    private static final Logger LOG = LoggerFactory.getLogger(StateListeners.class);

    private final List<StateListener> listeners = new CopyOnWriteArrayList<>();

    public void add(StateListener listener) {
        listeners.add(listener);
    }

    public void remove(StateListener listener) {
        listeners.remove(listener);
    }

    @Override
    public void stateChanged(StateChange change) {
        for (StateListener listener : listeners) {
            try {
                listener.stateChanged(change);
            } catch (RuntimeException e) {
                LOG.warn("State listener {} failed on a change of channel [{}]: {}", listener.getClass().getName(),
                        change.channel(), e.getClass().getSimpleName());
            }
        }
    }
}
