package dev.keypool.events;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;

/**
 * The last state changes of the gateway (design §9 {@code GET /admin/events}), numbered in the order they were heard,
 * and their live subscribers (the events stream). With Redis (design §11) it also holds the events of the other
 * instances, each with the id of the instance it happened on: this instance's own are handed to {@link #shareWith}'s
 * consumer, the others' come in through {@link #heard}, and a change this instance only took over from another one
 * ({@link RemoteOrigin}) is left out, as that instance's own event tells it. Thread-safe: a subscriber gets the
 * changes it missed and then every new one, none twice and none lost in between.
 */
public final class EventLog implements StateListener {

    /** One event and its number, counted from 1 for the life of this instance. */
    public record Entry(long id, Event event) {
    }

    /** A live subscription; close it when its reader is gone. */
    public interface Subscription extends AutoCloseable {
        @Override
        void close();
    }

    private final int capacity;
    private final String instance;
    // guarded by this
    private final Deque<Entry> entries = new ArrayDeque<>();
    private long lastId;
    private final List<Consumer<Entry>> subscribers = new CopyOnWriteArrayList<>();
    private volatile Consumer<Event> shared = event -> { };

    /**
     * @param capacity how many events are kept; older ones are dropped
     * @param instance this instance's id, which its own events carry
     */
    public EventLog(int capacity, String instance) {
        if (capacity < 1) {
            throw new IllegalArgumentException("capacity must be at least 1, was " + capacity);
        }
        this.capacity = capacity;
        this.instance = Objects.requireNonNull(instance, "instance");
    }

    /** This instance's own changes, and none taken over from another instance. */
    @Override
    public void stateChanged(StateChange change) {
        if (RemoteOrigin.active()) {
            return;
        }
        Event event = Event.of(instance, change);
        add(event);
        shared.accept(event);
    }

    /** An event of another instance. */
    public void heard(Event event) {
        add(event);
    }

    /** Hands each of this instance's own events to {@code out} (which must not block), for the other instances. */
    public void shareWith(Consumer<Event> out) {
        this.shared = Objects.requireNonNull(out, "out");
    }

    private void add(Event event) {
        // numbered and delivered under the lock, so that every subscriber hears the changes in their order
        synchronized (this) {
            Entry entry = new Entry(++lastId, event);
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
