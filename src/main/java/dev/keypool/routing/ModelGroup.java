package dev.keypool.routing;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * A model name clients ask for and the targets that serve it, in file order; {@code maxPriceRatio} is null when the
 * group sets no cost guard, {@code cache} null when it keeps no response cache.
 */
public record ModelGroup(String name, Balance balance, Sticky sticky, Double maxPriceRatio, List<Target> targets,
                         CachePolicy cache) {

    public ModelGroup {
        targets = List.copyOf(targets);
    }

    /** A group without a response cache. */
    public ModelGroup(String name, Balance balance, Sticky sticky, Double maxPriceRatio, List<Target> targets) {
        this(name, balance, sticky, maxPriceRatio, targets, null);
    }

    /** The same group with new weights for the targets named {@code channel/model} (or only {@code channel}). */
    public ModelGroup withWeights(Map<String, Integer> weights) {
        List<Target> changed = new ArrayList<>();
        for (Target target : targets) {
            Integer weight = weights.get(target.channel() + "/" + target.model());
            if (weight == null) {
                weight = weights.get(target.channel());
            }
            changed.add(weight == null ? target : target.withWeight(weight));
        }
        return new ModelGroup(name, balance, sticky, maxPriceRatio, changed, cache);
    }

    /** Whether {@code channel/model} or {@code channel} names one of the targets. */
    public boolean names(String target) {
        return targets.stream().anyMatch(t -> target.equals(t.channel()) || target.equals(t.channel() + "/" + t.model()));
    }
}
