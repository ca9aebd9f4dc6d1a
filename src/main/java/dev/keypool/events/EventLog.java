package dev.keypool.events;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;

/**
 * The last state changes of the gateway (design §9 {@code GET /admin/events}), numbered in the order they were heard,
 * and their live subscribers (the events stream). Thread-safe: a subscriber gets the changes it missed and then every
 * new one, none twice and none lost in between.
 */
public final class EventLog implements StateListener {

    /** One change and its number, counted from 1 for the life of the gateway. */
    public record Entry(long id, StateChange change) {
    }

    /** A live subscription; close it when its reader is gone. */
    public interface Subscription extends AutoCloseable {
        @Override
        void close();
    }

    private final int capacity;
    // guarded by this
    private final Deque<Entry> entries = new ArrayDeque<>();
    private long lastId;
    private final List<Consumer<Entry>> subscribers = new CopyOnWriteArrayList<>();

    /** @param capacity how many changes are kept; older ones are dropped */
    public EventLog(int capacity) {
        if (capacity < 1) {
            throw new IllegalArgumentException("capacity must be at least 1, was " + capacity);
        }
        this.capacity = capacity;
    }

    @Override
    public void stateChanged(StateChange change) {
        // numbered and delivered under the lock, so that every subscriber hears the changes in their order
        synchronized (this) {
            Entry entry = new Entry(++lastId, change);
            entries.addLast(entry);
            if (entries.size() > capacity) {
                entries.removeFirst();
            }
            for (Consumer<Entry> subscriber : subscribers) {
                subscriber.accept(entry);
            }
        }
    }

    /** The kept changes with a number above {@code afterId}, oldest first (0 for all). */
    public synchronized List<Entry> since(long afterId) {
        List<Entry> newer = new ArrayList<>();
        for (Entry entry : entries) {
            if (entry.id() > afterId) {
                newer.add(entry);
            }
        }
        return newer;
    }

    /**
     * The kept changes after {@code afterId}, then every new one as it is heard, to {@code subscriber}; it is called on
     * the thread of the change and must not block (queue, or write without waiting).
     */
    public synchronized Subscription subscribe(long afterId, Consumer<Entry> subscriber) {
        since(afterId).forEach(subscriber);
        subscribers.add(subscriber);
        return () -> subscribers.remove(subscriber);
    }
}
