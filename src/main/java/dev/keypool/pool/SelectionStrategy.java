package dev.keypool.pool;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Predicate;
import java.util.function.Supplier;
import java.util.function.ToDoubleFunction;
import java.util.stream.Stream;

/** How a pool chooses among its usable keys. Implementations are thread-safe. */
public interface SelectionStrategy {

    /** The strategies a channel may name, in design.md's order, each made anew per pool (they keep state). */
    Map<String, Supplier<SelectionStrategy>> BY_NAME = Collections.unmodifiableMap(Stream.<Map.Entry<String, Supplier<SelectionStrategy>>>of(
            Map.entry(RoundRobinStrategy.NAME, RoundRobinStrategy::new),
            Map.entry(WeightedRandomStrategy.NAME, WeightedRandomStrategy::new),
            Map.entry(LeastInFlightStrategy.NAME, LeastInFlightStrategy::new),
            Map.entry(LatencyWeightedStrategy.NAME, LatencyWeightedStrategy::new))
            .collect(LinkedHashMap::new, (map, e) -> map.put(e.getKey(), e.getValue()), Map::putAll));

    /** The strategy names, for config validation. */
    Set<String> NAMES = BY_NAME.keySet();

    /**
     * Picks one of {@code keys} for which {@code eligible} is true, or empty; keys are in configuration order.
     * Shares follow {@code weight}, the pool's effective weight of each key (design §8); a key of weight 0 is not picked.
     */
    Optional<ApiKey> pick(List<ApiKey> keys, Predicate<ApiKey> eligible, ToDoubleFunction<ApiKey> weight);

    /**
     * A new strategy for {@code name} (one of {@link #NAMES}). New on every call because strategies keep per-pool
     * state such as the round-robin cursor.
     *
     * @throws IllegalArgumentException for any other name
     */
    static SelectionStrategy named(String name) {
        Supplier<SelectionStrategy> strategy = name == null ? null : BY_NAME.get(name);
        if (strategy == null) {
            throw new IllegalArgumentException("Unknown selection strategy '" + name + "', expected one of " + NAMES);
        }
        return strategy.get();
    }

    /**
     * {@link #named(String)}, the round robin at {@code rotation}'s positions (shared by gateway instances); the other
     * strategies keep no rotation to share.
     */
    static SelectionStrategy named(String name, Rotation rotation) {
        return RoundRobinStrategy.NAME.equals(name) ? new RoundRobinStrategy(rotation) : named(name);
    }
}
