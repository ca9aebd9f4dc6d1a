package dev.keypool.config;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Unmodifiable copies for the config records. Maps and sets keep their order (it is the file's order,
 * which status pages show); null becomes empty so that hand-built records in tests stay short.
 */
final class Copies {

    private Copies() {
    }

    static <T> List<T> list(List<T> list) {
        return list == null ? List.of() : List.copyOf(list);
    }

    static <T> Set<T> set(Set<T> set) {
        return set == null ? Set.of() : Collections.unmodifiableSet(new LinkedHashSet<>(set));
    }

    static <K, V> Map<K, V> map(Map<K, V> map) {
        return map == null ? Map.of() : Collections.unmodifiableMap(new LinkedHashMap<>(map));
    }
}
