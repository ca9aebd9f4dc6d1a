package dev.keypool.pool;

import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.Predicate;
import java.util.function.Supplier;
import java.util.function.ToDoubleFunction;
import java.util.random.RandomGenerator;

/**
 * A random eligible key, with probability proportional to effective weight / recent mean latency (at least 1 ms), so slow
 * keys get less traffic but never none. A key with no recent calls is scored at the mean latency of those that
 * have some: it gets a fair share, and with it the samples that tell how fast it really is.
 */
public final class LatencyWeightedStrategy implements SelectionStrategy {

    public static final String NAME = "latency-weighted";

    private static final double MIN_LATENCY_MS = 1.0;

    private final Supplier<RandomGenerator> random;

    public LatencyWeightedStrategy() {
        // looked up per pick: ThreadLocalRandom must be used from the thread that got it
        this.random = ThreadLocalRandom::current;
    }

    /** For tests: a seeded generator makes the draws repeatable. It must be safe for the threads that pick. */
    public LatencyWeightedStrategy(RandomGenerator random) {
        Objects.requireNonNull(random, "random");
        this.random = () -> random;
    }

    @Override
    public Optional<ApiKey> pick(List<ApiKey> keys, Predicate<ApiKey> eligible, ToDoubleFunction<ApiKey> weight) {
        List<ApiKey> candidates = keys.stream().filter(eligible).toList();
        Map<ApiKey, OptionalDouble> latencies = new IdentityHashMap<>();
        candidates.forEach(key -> latencies.put(key, key.recentLatencyMs()));
        double unknown = meanOfKnown(latencies.values());
        return WeightedChoice.draw(candidates, key -> true,
                key -> weight.applyAsDouble(key) / Math.max(latencies.get(key).orElse(unknown), MIN_LATENCY_MS),
                random.get());
    }

    /** The mean of the known latencies; 1 ms when none is known, which leaves plain weights. */
    private static double meanOfKnown(Iterable<OptionalDouble> latencies) {
        double sum = 0;
        int known = 0;
        for (OptionalDouble latency : latencies) {
            if (latency.isPresent()) {
                sum += latency.getAsDouble();
                known++;
            }
        }
        return known == 0 ? MIN_LATENCY_MS : sum / known;
    }

    @Override
    public String toString() {
        return NAME;
    }
}
