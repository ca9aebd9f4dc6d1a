package dev.keypool.pool;

import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.function.Predicate;
import java.util.function.ToDoubleFunction;

/** How a pool chooses among its usable keys. Implementations are thread-safe. */
public interface SelectionStrategy {

    /** The four strategy names, for config validation. */
    Set<String> NAMES = Collections.unmodifiableSet(new LinkedHashSet<>(List.of(
            RoundRobinStrategy.NAME, WeightedRandomStrategy.NAME, LeastInFlightStrategy.NAME, LatencyWeightedStrategy.NAME)));

    /**
     * Picks one of {@code keys} for which {@code eligible} is true, or empty; keys are in configuration order.
     * Shares follow {@code weight}, the pool's effective weight of each key (SPEC §8); a key of weight 0 is not picked.
     */
    Optional<ApiKey> pick(List<ApiKey> keys, Predicate<ApiKey> eligible, ToDoubleFunction<ApiKey> weight);

    /**
     * A new strategy for {@code name} (one of {@link #NAMES}). New on every call because strategies keep per-pool
     * state such as the round-robin cursor.
     *
     * @throws IllegalArgumentException for any other name
     */
    static SelectionStrategy named(String name) {
        if (name == null) {
            throw new IllegalArgumentException("Selection strategy name missing, expected one of " + NAMES);
        }
        return switch (name) {
            case RoundRobinStrategy.NAME -> new RoundRobinStrategy();
            case WeightedRandomStrategy.NAME -> new WeightedRandomStrategy();
            case LeastInFlightStrategy.NAME -> new LeastInFlightStrategy();
            case LatencyWeightedStrategy.NAME -> new LatencyWeightedStrategy();
            default -> throw new IllegalArgumentException(
                    "Unknown selection strategy '" + name + "', expected one of " + NAMES);
        };
    }
}
