package dev.keypool.config;

import java.time.Duration;
import java.time.ZoneId;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import dev.keypool.auth.ProviderAuth;
import dev.keypool.breaker.BreakerSettings;
import dev.keypool.pool.Cooling;
import dev.keypool.pool.Recovery;
import dev.keypool.quota.ModelPrice;

/**
 * One upstream provider endpoint with its pool of keys, selection strategy, fallback chain and breaker;
 * {@code pricing} by upstream model name; {@code probe} its health probes (null: none); {@code warmup} how long a key
 * entering service ramps up to its weight (zero: at once); {@code anthropicBeta} the client's anthropic-beta flags it
 * passes on to the provider ({@value #ANY_BETA} for all; empty, the default: none); {@code provider} how its calls
 * are addressed (type, Azure's apiVersion and deployments, added headers and query). A 429 without Retry-After cools
 * a key for exactly {@code cooldown} when the channel sets it, else for a random time in {@code [cooldownMin,
 * cooldownMax]} ({@link #cooling}); {@code recovery} how DISABLED keys heal by themselves where there is no probe block.
 */
public record ChannelConfig(String name, String baseUrl, List<String> models, Map<String, String> modelMap,
                            String strategy, Duration timeout, int maxRetries, Duration cooldown, int disableAfter,
                            ZoneId quotaZone, List<KeyConfig> keys, List<String> fallback, BreakerSettings breaker,
                            Set<Api> apis, ProviderAuth auth, Map<String, ModelPrice> pricing,
                            ProbeConfig probe, Duration warmup,
                            List<String> anthropicBeta, ProviderConfig provider, Duration cooldownMin,
                            Duration cooldownMax, Recovery recovery) {

    /** In {@code models} means "serves every model". */
    public static final String ANY_MODEL = "*";

    /** In {@code anthropicBeta} means "every flag a client sends passes". */
    public static final String ANY_BETA = "*";

    /** A provider that takes longer than this to accept a connection is down, however long its answers may take. */
    public static final Duration MAX_CONNECT_TIMEOUT = Duration.ofSeconds(10);

    public ChannelConfig {
        models = Copies.list(models);
        modelMap = Copies.map(modelMap);
        keys = Copies.list(keys);
        fallback = Copies.list(fallback);
        apis = apis == null ? Api.DEFAULT : Set.copyOf(apis);
        auth = auth == null ? ProviderAuth.BEARER : auth;
        pricing = Copies.map(pricing);
        warmup = warmup == null ? Duration.ZERO : warmup;
        anthropicBeta = Copies.list(anthropicBeta);
        provider = provider == null ? ProviderConfig.OPENAI : provider;
        recovery = recovery == null ? Recovery.OFF : recovery;
    }

    /** An OpenAI-compatible provider with nothing added to its calls, a fixed {@code cooldown}, no recovery. */
    public ChannelConfig(String name, String baseUrl, List<String> models, Map<String, String> modelMap,
                         String strategy, Duration timeout, int maxRetries, Duration cooldown, int disableAfter,
                         ZoneId quotaZone, List<KeyConfig> keys, List<String> fallback, BreakerSettings breaker,
                         Set<Api> apis, ProviderAuth auth, Map<String, ModelPrice> pricing,
                         ProbeConfig probe, Duration warmup, List<String> anthropicBeta) {
        this(name, baseUrl, models, modelMap, strategy, timeout, maxRetries, cooldown, disableAfter, quotaZone, keys,
                fallback, breaker, apis, auth, pricing, probe, warmup, anthropicBeta, ProviderConfig.OPENAI, null, null,
                Recovery.OFF);
    }

    /** Passing no anthropic-beta flag. */
    public ChannelConfig(String name, String baseUrl, List<String> models, Map<String, String> modelMap,
                         String strategy, Duration timeout, int maxRetries, Duration cooldown, int disableAfter,
                         ZoneId quotaZone, List<KeyConfig> keys, List<String> fallback, BreakerSettings breaker,
                         Set<Api> apis, ProviderAuth auth, Map<String, ModelPrice> pricing,
                         ProbeConfig probe, Duration warmup) {
        this(name, baseUrl, models, modelMap, strategy, timeout, maxRetries, cooldown, disableAfter, quotaZone, keys,
                fallback, breaker, apis, auth, pricing, probe, warmup, List.of());
    }

    /** Without probes and warm-up. */
    public ChannelConfig(String name, String baseUrl, List<String> models, Map<String, String> modelMap,
                         String strategy, Duration timeout, int maxRetries, Duration cooldown, int disableAfter,
                         ZoneId quotaZone, List<KeyConfig> keys, List<String> fallback, BreakerSettings breaker,
                         Set<Api> apis, ProviderAuth auth, Map<String, ModelPrice> pricing) {
        this(name, baseUrl, models, modelMap, strategy, timeout, maxRetries, cooldown, disableAfter, quotaZone, keys,
                fallback, breaker, apis, auth, pricing, null, Duration.ZERO);
    }

    /**
     * The keys keypool.yaml lists for this channel, by fingerprint, in the file's order: how the admin API and the keys
     * added at runtime tell a key of the file from one of their own without holding a raw key.
     */
    public Map<String, KeyConfig> keysByFingerprint() {
        Map<String, KeyConfig> byFingerprint = new LinkedHashMap<>();
        for (KeyConfig key : keys) {
            byFingerprint.putIfAbsent(key.fingerprint(), key);
        }
        return Collections.unmodifiableMap(byFingerprint);
    }

    /** The same channel calling its provider at {@code url}, addressed as {@code calls} says. */
    public ChannelConfig reachedAt(String url, ProviderConfig calls) {
        return new ChannelConfig(name, url, models, modelMap, strategy, timeout, maxRetries, cooldown, disableAfter,
                quotaZone, keys, fallback, breaker, apis, auth, pricing, probe, warmup, anthropicBeta, calls, cooldownMin,
                cooldownMax, recovery);
    }

    /** How long a 429 without Retry-After cools a key: {@code cooldown} exactly, or spread over its bounds. */
    public Cooling cooling() {
        return cooldown != null ? Cooling.fixed(cooldown) : Cooling.spread(cooldownMin, cooldownMax);
    }

    /** How the channel's DISABLED keys heal by themselves: not at all where a probe block probes them. */
    public Recovery keyRecovery() {
        return probe == null ? recovery : Recovery.OFF;
    }

    /** Whether requests of this API may come here ({@code apis}, default chat, embeddings, completions). */
    public boolean servesApi(Api api) {
        return apis.contains(api);
    }

    /** The longest a connection to the provider may take to open: the whole timeout, at most 10 seconds. */
    public Duration connectTimeout() {
        return timeout.compareTo(MAX_CONNECT_TIMEOUT) < 0 ? timeout : MAX_CONNECT_TIMEOUT;
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
