package dev.keypool.routing;

import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The model groups by name. A reload or a weight change replaces the map whole: a request looks its model up once
 * (the common path, a model that is no group, costs that lookup only) and keeps the group it found.
 */
public final class ModelGroups {

    private record Snapshot(Map<String, ModelGroup> byName, List<ModelGroup> ordered) {
    }

    private volatile Snapshot snapshot;

    public ModelGroups(List<ModelGroup> groups) {
        replace(groups);
    }

    public void replace(List<ModelGroup> groups) {
        Map<String, ModelGroup> next = new LinkedHashMap<>();
        groups.forEach(g -> next.put(g.name(), g));
        snapshot = new Snapshot(Map.copyOf(next), List.copyOf(next.values()));
    }

    /** The group of that name, or null: the request's model is no group. */
    public ModelGroup get(String name) {
        Map<String, ModelGroup> byName = snapshot.byName();
        return byName.isEmpty() ? null : byName.get(name);
    }

    public Collection<ModelGroup> all() {
        return snapshot.ordered();
    }

    /** Sets the weights of a group's targets; empty when there is no group of that name. */
    public synchronized Optional<ModelGroup> changeWeights(String name, Map<String, Integer> weights) {
        ModelGroup group = snapshot.byName().get(name);
        if (group == null) {
            return Optional.empty();
        }
        ModelGroup changed = group.withWeights(weights);
        replace(snapshot.ordered().stream().map(g -> g.name().equals(name) ? changed : g).toList());
        return Optional.of(changed);
    }
}
