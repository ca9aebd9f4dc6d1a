package dev.keypool.pool;

import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Predicate;

/**
 * Each pick starts one key further than the last and takes the first eligible key from there. Lock-free: every
 * pick claims its own cursor value, so concurrent pickers over all-eligible keys share them out exactly evenly.
 */
public final class RoundRobinStrategy implements SelectionStrategy {

    public static final String NAME = "round-robin";

    private final AtomicLong cursor = new AtomicLong();

    @Override
    public Optional<ApiKey> pick(List<ApiKey> keys, Predicate<ApiKey> eligible) {
        int n = keys.size();
        if (n == 0) {
            return Optional.empty();
        }
        int start = Math.floorMod(cursor.getAndIncrement(), n);
        for (int i = 0; i < n; i++) {
            ApiKey key = keys.get((start + i) % n);
            if (eligible.test(key)) {
                return Optional.of(key);
            }
        }
        return Optional.empty();
    }

    @Override
    public String toString() {
        return NAME;
    }
}
