package dev.keypool.gateway;

import java.util.Collection;
import java.util.Collections;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

import dev.keypool.config.Api;
import dev.keypool.config.ChannelConfig;

/**
 * All channels in configuration order, and the model routing of design §2. A reload replaces the whole set at once
 * ({@link #replace}); a request plans against one set and keeps the channels it was given until it is answered.
 */
public final class Channels {

    /**
     * Where a request goes: its model as the client meant it and the ordered chain of channels to try; for a model
     * group, {@code models} the model to send at each step of the chain (null: each channel's own for {@code model}),
     * and {@code tooExpensive} the steps ({@code channel/model}) its cost guard took out of the chain.
     */
    public record Plan(String model, List<Channel> chain, List<String> models, List<String> tooExpensive) {

        public Plan {
            tooExpensive = tooExpensive == null ? List.of() : List.copyOf(tooExpensive);
        }

        public Plan(String model, List<Channel> chain, List<String> models) {
            this(model, chain, models, List.of());
        }

        public Plan(String model, List<Channel> chain) {
            this(model, chain, null);
        }

        /** Only the steps whose channel passes {@code keep}, each with its model. */
        public Plan only(java.util.function.Predicate<Channel> keep) {
            List<Channel> keptChain = new java.util.ArrayList<>();
            List<String> keptModels = models == null ? null : new java.util.ArrayList<>();
            for (int i = 0; i < chain.size(); i++) {
                if (keep.test(chain.get(i))) {
                    keptChain.add(chain.get(i));
                    if (keptModels != null) {
                        keptModels.add(models.get(i));
                    }
                }
            }
            return new Plan(model, keptChain, keptModels, tooExpensive);
        }
    }

    /**
     * One configuration's channels by name, and each channel's chain per API (only channels serving it), worked out
     * once: a request only looks it up.
     */
    private record Snapshot(Map<String, Channel> byName, Map<Api, Map<String, List<Channel>>> chains, Set<String> models) {
    }

    private volatile Snapshot snapshot;

    public Channels(Collection<Channel> channels) {
        replace(channels);
    }

    /** The channels of a reloaded configuration, from now on; requests already planned keep theirs. */
    public void replace(Collection<Channel> channels) {
        Map<String, Channel> byName = new LinkedHashMap<>();
        channels.forEach(c -> byName.put(c.name(), c));
        Map<Api, Map<String, List<Channel>>> chains = new EnumMap<>(Api.class);
        for (Api api : Api.values()) {
            Map<String, List<Channel>> byPrimary = new HashMap<>();
            byName.values().forEach(c -> byPrimary.put(c.name(),
                    chainOf(byName, c).stream().filter(member -> member.config().servesApi(api)).toList()));
            chains.put(api, byPrimary);
        }
        Set<String> models = new HashSet<>();
        byName.values().forEach(c -> {
            models.addAll(c.config().models());
            models.addAll(c.config().modelMap().keySet());
        });
        models.remove(ChannelConfig.ANY_MODEL);
        snapshot = new Snapshot(Collections.unmodifiableMap(byName), chains, Set.copyOf(models));
    }

    public Collection<Channel> all() {
        return snapshot.byName().values();
    }

    public Optional<Channel> get(String name) {
        return Optional.ofNullable(snapshot.byName().get(name));
    }

    /** Whether a channel lists the model by name (in {@code models} or as a {@code modelMap} alias); {@code *} does not count. */
    public boolean configured(String model) {
        return snapshot.models().contains(model);
    }

    /** The model a request names, without a {@code channel/} prefix naming one of the channels. */
    public String modelName(String requestedModel) {
        int slash = requestedModel.indexOf('/');
        return slash > 0 && snapshot.byName().containsKey(requestedModel.substring(0, slash))
                ? requestedModel.substring(slash + 1) : requestedModel;
    }

    /**
     * The primary channel is the first that serves the model, or the one named by a {@code channel/model}
     * prefix; the chain is the primary and its own fallback list, one level deep and without repeats, so
     * cycles in the configuration cannot loop. Only channels that serve the request's API count, as primary and
     * in the chain.
     */
    public Plan plan(String requestedModel, Api api) {
        Snapshot now = snapshot;
        Map<String, Channel> byName = now.byName();
        String model = requestedModel;
        Channel primary = null;
        int slash = requestedModel.indexOf('/');
        if (slash > 0 && byName.containsKey(requestedModel.substring(0, slash))) {
            Channel pinned = byName.get(requestedModel.substring(0, slash));
            primary = pinned.config().servesApi(api) ? pinned : null;
            model = requestedModel.substring(slash + 1);
        } else {
            for (Channel c : byName.values()) {
                if (c.config().servesApi(api) && c.config().servesModel(requestedModel)) {
                    primary = c;
                    break;
                }
            }
        }
        if (primary == null) {
            throw GatewayError.modelNotFound(requestedModel, api);
        }
        return new Plan(model, now.chains().get(api).get(primary.name()));
    }

    /** The primary and its own fallback list, one level deep and without repeats. */
    private static List<Channel> chainOf(Map<String, Channel> byName, Channel primary) {
        Map<String, Channel> chain = new LinkedHashMap<>();
        chain.put(primary.name(), primary);
        for (String name : primary.config().fallback()) {
            Channel fallback = byName.get(name);
            if (fallback != null) {
                chain.putIfAbsent(fallback.name(), fallback);
            }
        }
        return List.copyOf(chain.values());
    }
}
