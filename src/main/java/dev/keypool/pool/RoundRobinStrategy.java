package dev.keypool.pool;

import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Predicate;
import java.util.function.ToDoubleFunction;

/**
 * Smooth weighted round-robin over the eligible keys, nginx's algorithm: each pick adds every eligible key's
 * weight to its running score, takes the key with the highest score and lowers that score by the sum of the
 * weights. Deterministic and fair: weights 5:3:2 give exactly 5, 3 and 2 picks in every 10, spread out rather than
 * in runs; a key that is not eligible neither gains nor loses turns, so the others share its traffic evenly
 * instead of the key after it inheriting all of it.
 */
public final class RoundRobinStrategy implements SelectionStrategy {

    public static final String NAME = "round-robin";

    /** Running score per key; guarded by this. */
    private final Map<ApiKey, double[]> scores = new IdentityHashMap<>();

    @Override
    public Optional<ApiKey> pick(List<ApiKey> keys, Predicate<ApiKey> eligible, ToDoubleFunction<ApiKey> weight) {
        // eligibility is decided outside the lock: it may apply the clock to a key's state, and log it
        List<ApiKey> candidates = new ArrayList<>(keys.size());
        List<Double> weights = new ArrayList<>(keys.size());
        for (ApiKey key : keys) {
            double w;
            if (eligible.test(key) && (w = weight.applyAsDouble(key)) > 0) {
                candidates.add(key);
                weights.add(w);
            }
        }
        if (candidates.isEmpty()) {
            return Optional.empty();
        }
        synchronized (this) {
            ApiKey best = null;
            double[] bestScore = null;
            double total = 0;
            for (int i = 0; i < candidates.size(); i++) {
                double w = weights.get(i);
                double[] score = scores.computeIfAbsent(candidates.get(i), k -> new double[1]);
                score[0] += w;
                total += w;
                if (bestScore == null || score[0] > bestScore[0]) {
                    best = candidates.get(i);
                    bestScore = score;
                }
            }
            bestScore[0] -= total;
            return Optional.of(best);
        }
    }

    @Override
    public String toString() {
        return NAME;
    }
}
