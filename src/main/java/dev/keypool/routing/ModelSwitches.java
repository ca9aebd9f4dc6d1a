package dev.keypool.routing;

import java.time.Clock;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * When a walk moves on to a model other than the one it started with (a group's next target, a channel's fallback),
 * says whether to log it: once per period for each pair of models, so that an outage of the first target is a line a
 * minute, not one per request. The pairs come from the configuration's targets and chains, so the map stays small.
 */
public final class ModelSwitches {

    private final Duration period;
    private final Clock clock;
    private final Map<String, Long> lastLogged = new ConcurrentHashMap<>();

    public ModelSwitches(Duration period, Clock clock) {
        this.period = period;
        this.clock = clock;
    }

    /** True when the switch {@code from} → {@code to} was not logged within the period; then it counts as logged now. */
    public boolean shouldLog(String from, String to) {
        long now = clock.millis();
        String pair = from + " -> " + to;
        Long last = lastLogged.get(pair);
        if (last != null && now - last < period.toMillis()) {
            return false;
        }
        // two requests at once: only the one whose replace wins logs
        return last == null ? lastLogged.putIfAbsent(pair, now) == null : lastLogged.replace(pair, last, now);
    }
}
