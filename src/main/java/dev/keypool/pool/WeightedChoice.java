package dev.keypool.pool;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Predicate;
import java.util.function.ToDoubleFunction;
import java.util.random.RandomGenerator;

/** Draws one eligible key with probability proportional to its score; shared by the random strategies. */
final class WeightedChoice {

    private WeightedChoice() {
    }

    /** A key for which {@code eligible} holds, drawn by {@code score}; keys scoring 0 or less are never drawn. */
    static Optional<ApiKey> draw(List<ApiKey> keys, Predicate<ApiKey> eligible, ToDoubleFunction<ApiKey> score,
                                 RandomGenerator random) {
        List<ApiKey> candidates = new ArrayList<>(keys.size());
        double[] scores = new double[keys.size()];
        double total = 0;
        for (ApiKey key : keys) {
            double s;
            if (eligible.test(key) && (s = score.applyAsDouble(key)) > 0) {
                scores[candidates.size()] = s;
                candidates.add(key);
                total += s;
            }
        }
        if (candidates.isEmpty()) {
            return Optional.empty();
        }
        double point = random.nextDouble() * total;
        for (int i = 0; i < candidates.size(); i++) {
            point -= scores[i];
            if (point < 0) {
                return Optional.of(candidates.get(i));
            }
        }
        // rounding can leave point at a hair above 0 after the last score; that draw belongs to the last key
        return Optional.of(candidates.get(candidates.size() - 1));
    }
}
