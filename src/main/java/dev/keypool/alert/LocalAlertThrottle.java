package dev.keypool.alert;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The throttle of one instance, in memory: an instance alone, or the first look of the shared one. Thread-safe; the
 * subjects come from the configuration (keys, channels, tenants), so the map stays small.
 */
public final class LocalAlertThrottle implements AlertThrottle {

    private final Duration period;
    private final Clock clock;
    private final Map<String, Instant> lastSent = new ConcurrentHashMap<>();

    public LocalAlertThrottle(Duration period, Clock clock) {
        if (period.isNegative() || period.isZero()) {
            throw new IllegalArgumentException("period must be > 0, was " + period);
        }
        this.period = period;
        this.clock = clock;
    }

    @Override
    public boolean allow(AlertRule rule, String subject) {
        Instant now = clock.instant();
        AtomicBoolean allowed = new AtomicBoolean();
        lastSent.compute(rule.configName() + "\u0000" + subject, (k, last) -> {
            if (last == null || !now.isBefore(last.plus(period))) {
                allowed.set(true);
                return now;
            }
            return last;
        });
        return allowed.get();
    }
}
