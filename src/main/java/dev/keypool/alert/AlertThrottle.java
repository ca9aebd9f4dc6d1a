package dev.keypool.alert;

/**
 * At most one alert per rule and subject per period: a flapping breaker or a key at its quota all afternoon is one
 * message every period, not one per request or check. {@link LocalAlertThrottle} counts for one instance; with
 * {@code redis:} the instances share one throttle ({@code dev.keypool.redis.RedisAlertThrottle}), so that N instances
 * seeing the same thing send one alert, not N.
 */
public interface AlertThrottle {

    /**
     * True when this rule has not spoken of this subject within the period; then it has, as of now. The shared one
     * asks Redis, so {@link Alerts} calls it after handing the alert off a request's thread.
     */
    boolean allow(AlertRule rule, String subject);
}
