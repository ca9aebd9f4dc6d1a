package dev.keypool.pool;

import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.Predicate;
import java.util.function.Supplier;
import java.util.function.ToDoubleFunction;
import java.util.random.RandomGenerator;

/** A random eligible key, with probability proportional to its effective weight. */
public final class WeightedRandomStrategy implements SelectionStrategy {

    public static final String NAME = "weighted-random";

    private final Supplier<RandomGenerator> random;

    public WeightedRandomStrategy() {
        // looked up per pick: ThreadLocalRandom must be used from the thread that got it
        this.random = ThreadLocalRandom::current;
    }

    /** For tests: a seeded generator makes the draws repeatable. It must be safe for the threads that pick. */
    public WeightedRandomStrategy(RandomGenerator random) {
        Objects.requireNonNull(random, "random");
        this.random = () -> random;
    }

    @Override
    public Optional<ApiKey> pick(List<ApiKey> keys, Predicate<ApiKey> eligible, ToDoubleFunction<ApiKey> weight) {
        return WeightedChoice.draw(keys, eligible, weight, random.get());
    }

    @Override
    public String toString() {
        return NAME;
    }
}
