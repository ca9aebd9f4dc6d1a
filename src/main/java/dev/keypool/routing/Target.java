package dev.keypool.routing;

/**
 * One way to serve a model group: a channel and the model it is asked for there; {@code weight} its share among the
 * targets of its tier (0: only walked to, never chosen first), {@code tier} 1 first, 2 only when tier 1 has no usable
 * target, and so on.
 */
public record Target(String channel, String model, int weight, int tier) {

    public Target {
        if (weight < 0 || tier < 1) {
            throw new IllegalArgumentException("weight must be >= 0 and tier >= 1");
        }
    }

    public Target withWeight(int newWeight) {
        return new Target(channel, model, newWeight, tier);
    }
}
