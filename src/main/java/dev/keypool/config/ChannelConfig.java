package dev.keypool.config;

import java.time.Duration;
import java.util.List;
import java.util.Map;

/** One upstream provider endpoint with its pool of keys, selection strategy, fallback chain and breaker. */
public record ChannelConfig(String name, String baseUrl, List<String> models, Map<String, String> modelMap,
                            String strategy, Duration timeout, int maxRetries, Duration cooldown, int disableAfter,
                            List<KeyConfig> keys, List<String> fallback, BreakerConfig breaker) {

    /** The key selection strategies a channel may name, in the order the SPEC lists them. */
    public static final List<String> STRATEGIES =
            List.of("round-robin", "weighted-random", "least-in-flight", "latency-weighted");

    /** In {@code models} means "serves every model". */
    public static final String ANY_MODEL = "*";

    public ChannelConfig {
        models = Copies.list(models);
        modelMap = Copies.map(modelMap);
        keys = Copies.list(keys);
        fallback = Copies.list(fallback);
    }

    /** A model is served when listed, when the channel takes any model, or when it is renamed on the way up. */
    public boolean servesModel(String model) {
        return models.contains(model) || models.contains(ANY_MODEL) || modelMap.containsKey(model);
    }

    /** The model name sent upstream: the {@code modelMap} rename, else the name the client asked for. */
    public String upstreamModel(String model) {
        return modelMap.getOrDefault(model, model);
    }
}
