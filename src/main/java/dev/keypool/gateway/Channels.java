package dev.keypool.gateway;

import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/** All channels in configuration order, and the model routing of SPEC §2. */
public final class Channels {

    /** Where a request goes: its model as the client meant it and the ordered chain of channels to try. */
    public record Plan(String model, List<Channel> chain) {
    }

    private final Map<String, Channel> byName = new LinkedHashMap<>();
    /** Each channel's chain, worked out once: a request only looks it up. */
    private final Map<String, List<Channel>> chains = new HashMap<>();

    public Channels(Collection<Channel> channels) {
        channels.forEach(c -> byName.put(c.name(), c));
        byName.values().forEach(c -> chains.put(c.name(), chainOf(c)));
    }

    public Collection<Channel> all() {
        return byName.values();
    }

    public Optional<Channel> get(String name) {
        return Optional.ofNullable(byName.get(name));
    }

    /**
     * The primary channel is the first that serves the model, or the one named by a {@code channel/model}
     * prefix; the chain is the primary and its own fallback list, one level deep and without repeats, so
     * cycles in the configuration cannot loop.
     */
    public Plan plan(String requestedModel) {
        String model = requestedModel;
        Channel primary = null;
        int slash = requestedModel.indexOf('/');
        if (slash > 0 && byName.containsKey(requestedModel.substring(0, slash))) {
            primary = byName.get(requestedModel.substring(0, slash));
            model = requestedModel.substring(slash + 1);
        } else {
            for (Channel c : byName.values()) {
                if (c.config().servesModel(requestedModel)) {
                    primary = c;
                    break;
                }
            }
        }
        if (primary == null) {
            throw GatewayError.modelNotFound(requestedModel);
        }
        return new Plan(model, chains.get(primary.name()));
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
