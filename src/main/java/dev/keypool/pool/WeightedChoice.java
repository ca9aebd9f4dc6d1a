package dev.keypool.pool;

import java.util.List;
import java.util.Optional;
import java.util.random.RandomGenerator;

/** Draws one candidate with probability proportional to its score; shared by the random strategies. */
final class WeightedChoice {

    private WeightedChoice() {
    }

    /** @param scores positive, one per candidate */
    static Optional<ApiKey> draw(List<ApiKey> candidates, double[] scores, RandomGenerator random) {
        if (candidates.isEmpty()) {
            return Optional.empty();
        }
        double total = 0;
        for (double score : scores) {
            total += score;
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
