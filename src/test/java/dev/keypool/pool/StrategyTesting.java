package dev.keypool.pool;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;

/** Runs a strategy many times and reports how the picks were shared out. */
final class StrategyTesting {

    private StrategyTesting() {
    }

    /** Percent of {@code picks} each key got; keys never picked are absent. */
    static Map<ApiKey, Double> shares(SelectionStrategy strategy, List<ApiKey> keys, Predicate<ApiKey> eligible,
                                      int picks) {
        Map<ApiKey, Integer> counts = new HashMap<>();
        for (int i = 0; i < picks; i++) {
            counts.merge(strategy.pick(keys, eligible, ApiKey::weight).orElseThrow(), 1, Integer::sum);
        }
        Map<ApiKey, Double> shares = new HashMap<>();
        counts.forEach((key, count) -> shares.put(key, count * 100.0 / picks));
        return shares;
    }
}
