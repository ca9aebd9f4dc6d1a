package dev.keypool.events;

import java.time.Instant;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * A state change as {@code GET /admin/events} shows it, with the instance that made it: this one, or another one of
 * those sharing a Redis (design §11). Plain values only, so that it travels between instances as it is.
 *
 * @param instance the id of the instance the change happened on ({@code keypool.instance-id})
 * @param channel  the channel of the key or breaker; null for a tenant's change or an alert of none
 * @param details  what the kind of change adds, in order: {@code key}, {@code tenant}, or an alert's {@code type},
 *                 {@code rule} and {@code subject}
 */
public record Event(String instance, Instant at, String channel, Map<String, String> details, String from, String to,
                    String message) {

    public Event {
        Objects.requireNonNull(instance, "instance");
        Objects.requireNonNull(at, "at");
        details = Collections.unmodifiableMap(new LinkedHashMap<>(details));
    }

    /** A change made on {@code instance}. */
    public static Event of(String instance, StateChange change) {
        return new Event(instance, change.at(), change.channel(), change.details(), change.from(), change.to(),
                change.message());
    }
}
