package dev.keypool.routing;

import java.time.Duration;
import java.util.Arrays;
import java.util.Locale;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * A model group's response cache (design §16 {@code cache}): which non-stream chat answers are kept, for how long they
 * answer at once ({@code ttl}), how long past that they still answer when no target can ({@code staleFor}), and
 * whether tenants share entries ({@code shared}) or each has its own.
 */
public record CachePolicy(Duration ttl, When when, Duration staleFor, boolean shared) {

    public static final Duration DEFAULT_TTL = Duration.ofMinutes(10);
    public static final Duration DEFAULT_STALE_FOR = Duration.ofHours(1);

    /** Which requests the cache takes. */
    public enum When {
        /** Only those that ask for a repeatable answer: {@code temperature} 0 or a {@code seed}. */
        DETERMINISTIC,
        /** Every non-stream chat request. */
        ALWAYS;

        public String configName() {
            return name().toLowerCase(Locale.ROOT);
        }

        public static Optional<When> named(String name) {
            return Arrays.stream(values()).filter(w -> w.configName().equals(name)).findFirst();
        }

        public static String names() {
            return Arrays.stream(values()).map(When::configName).collect(Collectors.joining(", "));
        }
    }

    public CachePolicy {
        if (ttl.isNegative() || ttl.isZero() || staleFor.isNegative()) {
            throw new IllegalArgumentException("ttl must be > 0 and staleFor >= 0");
        }
    }

    /** Whether a request that is ({@code deterministic}) or is not repeatable is cached. */
    public boolean takes(boolean deterministic) {
        return when == When.ALWAYS || deterministic;
    }

    /** How long an entry is kept: it answers at once for {@code ttl}, then only instead of an error. */
    public Duration keepFor() {
        return ttl.plus(staleFor);
    }
}
