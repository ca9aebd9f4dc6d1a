package dev.keypool.config;

import java.time.Duration;
import java.util.Set;

import dev.keypool.pool.Recovery;

/** The optional {@code recovery} block of one channel; absent = on, with the defaults below. */
final class RecoveryBinder {

    private static final Set<String> FIELDS = Set.of("enabled", "firstProbe", "maxInterval", "degradedFor");

    private static final Duration DEFAULT_FIRST_PROBE = Duration.ofMinutes(1);
    private static final Duration DEFAULT_MAX_INTERVAL = Duration.ofMinutes(30);
    private static final Duration DEFAULT_DEGRADED_FOR = Duration.ofMinutes(5);

    private static final Recovery DEFAULT = new Recovery(true, DEFAULT_FIRST_PROBE, DEFAULT_MAX_INTERVAL, DEFAULT_DEGRADED_FOR);

    Recovery bind(ConfigNode node) {
        if (node.isAbsent() || !node.checkMapping(FIELDS)) {
            return DEFAULT;
        }
        boolean enabled = node.field("enabled").bool().orElse(true);
        Duration firstProbe = node.field("firstProbe").positiveDuration().orElse(DEFAULT_FIRST_PROBE);
        ConfigNode maxNode = node.field("maxInterval");
        Duration maxInterval = maxNode.positiveDuration().orElse(DEFAULT_MAX_INTERVAL);
        // zero: a key that answers its probe is healthy at once
        Duration degradedFor = node.field("degradedFor").duration().orElse(DEFAULT_DEGRADED_FOR);
        if (maxInterval.compareTo(firstProbe) < 0) {
            (maxNode.isAbsent() ? node.field("firstProbe") : maxNode).problem("firstProbe (" + Durations.format(firstProbe)
                    + ") must not be longer than maxInterval (" + Durations.format(maxInterval) + ")");
            return DEFAULT;
        }
        return new Recovery(enabled, firstProbe, maxInterval, degradedFor);
    }
}
