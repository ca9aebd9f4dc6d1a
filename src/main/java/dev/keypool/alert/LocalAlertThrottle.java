package dev.keypool.alert;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * At most one alert per rule and subject per period: a flapping breaker or a key at its quota all afternoon is one
 * message every period, not one per request or check. Thread-safe; the subjects come from the configuration (keys,
 * channels, tenants), so the map stays small.
 */
public final class AlertThrottle {

    private final Duration period;
    private final Clock clock;
    private final Map<String, Instant> lastSent = new ConcurrentHashMap<>();

    public AlertThrottle(Duration period, Clock clock) {
        if (period.isNegative() || period.isZero()) {
            throw new IllegalArgumentException("period must be > 0, was " + period);
        }
        this.period = period;
        this.clock = clock;
    }

    /** True when this rule has not spoken of this subject within the period; then it has, as of now. */
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
