package dev.keypool.pool;

import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Predicate;

/**
 * The eligible key with the fewest calls in flight. The scan starts at a rotating position so that ties (the
 * common case when idle) are broken round-robin instead of always favouring the first key.
 */
public final class LeastInFlightStrategy implements SelectionStrategy {

    public static final String NAME = "least-in-flight";

    private final AtomicLong cursor = new AtomicLong();

    @Override
    public Optional<ApiKey> pick(List<ApiKey> keys, Predicate<ApiKey> eligible) {
        int n = keys.size();
        if (n == 0) {
            return Optional.empty();
        }
        int start = Math.floorMod(cursor.getAndIncrement(), n);
        ApiKey best = null;
        int bestInFlight = Integer.MAX_VALUE;
        for (int i = 0; i < n; i++) {
            ApiKey key = keys.get((start + i) % n);
            if (!eligible.test(key)) {
                continue;
            }
            int inFlight = key.inFlight();
            if (inFlight < bestInFlight) {
                best = key;
                bestInFlight = inFlight;
            }
        }
        return Optional.ofNullable(best);
    }

    @Override
    public String toString() {
        return NAME;
    }
}
