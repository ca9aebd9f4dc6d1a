package dev.keypool.gateway;

import java.util.Collection;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import dev.keypool.config.Api;

/** All channels in configuration order, and the model routing of SPEC §2. */
public final class Channels {

    /** Where a request goes: its model as the client meant it and the ordered chain of channels to try. */
    public record Plan(String model, List<Channel> chain) {
    }

    private final Map<String, Channel> byName = new LinkedHashMap<>();
    /** Each channel's chain per API (only channels serving it), worked out once: a request only looks it up. */
    private final Map<Api, Map<String, List<Channel>>> chains = new EnumMap<>(Api.class);

    public Channels(Collection<Channel> channels) {
        channels.forEach(c -> byName.put(c.name(), c));
        for (Api api : Api.values()) {
            Map<String, List<Channel>> byPrimary = new HashMap<>();
            byName.values().forEach(c -> byPrimary.put(c.name(),
                    chainOf(c).stream().filter(member -> member.config().servesApi(api)).toList()));
            chains.put(api, byPrimary);
        }
    }

    public Collection<Channel> all() {
        return byName.values();
    }

    public Optional<Channel> get(String name) {
        return Optional.ofNullable(byName.get(name));
    }

    /** The model a request names, without a {@code channel/} prefix naming one of the channels. */
    public String modelName(String requestedModel) {
        int slash = requestedModel.indexOf('/');
        return slash > 0 && byName.containsKey(requestedModel.substring(0, slash))
                ? requestedModel.substring(slash + 1) : requestedModel;
    }

    /**
     * The primary channel is the first that serves the model, or the one named by a {@code channel/model}
     * prefix; the chain is the primary and its own fallback list, one level deep and without repeats, so
     * cycles in the configuration cannot loop. Only channels that serve the request's API count, as primary and
     * in the chain.
     */
    public Plan plan(String requestedModel, Api api) {
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
        return new Plan(model, chains.get(api).get(primary.name()));
    }

    /** The primary and its own fallback list, one level deep and without repeats. */
    private List<Channel> chainOf(Channel primary) {
        Map<String, Channel> chain = new LinkedHashMap<>();
        chain.put(primary.name(), primary);
        for (String name : primary.config().fallback()) {
            get(name).ifPresent(c -> chain.putIfAbsent(c.name(), c));
        }
        return List.copyOf(chain.values());
    }
}
