package dev.keypool.pool;

import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Predicate;
import java.util.function.ToDoubleFunction;

/**
 * The eligible key with the fewest calls in flight for its effective weight (calls / weight, nginx's weighted
 * least_conn: a key of weight 2 takes twice the concurrent calls of a key of weight 1). The scan starts at a rotating
 * position so that ties (the common case when idle) are broken round-robin instead of always favouring the first key.
 */
public final class LeastInFlightStrategy implements SelectionStrategy {

    public static final String NAME = "least-in-flight";

    private final AtomicLong cursor = new AtomicLong();

    @Override
    public Optional<ApiKey> pick(List<ApiKey> keys, Predicate<ApiKey> eligible, ToDoubleFunction<ApiKey> weight) {
        int n = keys.size();
        if (n == 0) {
            return Optional.empty();
        }
        int start = Math.floorMod(cursor.getAndIncrement(), n);
        ApiKey best = null;
        double bestLoad = Double.MAX_VALUE;
        for (int i = 0; i < n; i++) {
            ApiKey key = keys.get((start + i) % n);
            double w;
            if (!eligible.test(key) || (w = weight.applyAsDouble(key)) <= 0) {
                continue;
            }
            double load = key.inFlight() / w;
            if (load < bestLoad) {
                best = key;
                bestLoad = load;
            }
        }
        return Optional.ofNullable(best);
    }

    @Override
    public String toString() {
        return NAME;
    }
}
