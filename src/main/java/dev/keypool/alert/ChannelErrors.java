package dev.keypool.alert;

import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;

import dev.keypool.window.SlidingCounter;

/**
 * Failed provider calls per channel over the last {@code window}, fed with each channel's running total of failures
 * as the checks see it: the difference since the last check is what failed in between. A total that went down (keys
 * removed by a reload) starts the count afresh from it. Thread-safe.
 */
public final class ChannelErrors {

    private final Duration window;
    private final Map<String, SlidingCounter> counts = new HashMap<>();
    private final Map<String, Long> lastTotals = new HashMap<>();

    public ChannelErrors(Duration window) {
        this.window = window;
    }

    /**
     * The channel's failures so far, as of {@code now}.
     *
     * @return the failures within the window, these included
     */
    public synchronized long update(String channel, long total, Instant now) {
        long last = lastTotals.getOrDefault(channel, 0L);
        lastTotals.put(channel, total);
        SlidingCounter counter = counts.computeIfAbsent(channel, c -> new SlidingCounter(window));
        if (total > last) {
            counter.add(now, now, total - last);
        }
        return counter.sum(now);
    }
}
