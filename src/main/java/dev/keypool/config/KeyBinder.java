package dev.keypool.config;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/** The {@code keys} list of one channel. */
final class KeyBinder {

    private static final Set<String> FIELDS = Set.of("key", "label", "weight", "rpm", "tpm", "rpd", "tpd", "tpmMonth",
            "rollout", "retiring");
    private static final int DEFAULT_WEIGHT = 1;

    List<KeyConfig> bind(ConfigNode keysNode) {
        List<KeyConfig> keys = new ArrayList<>();
        Map<String, Integer> firstIndex = new HashMap<>();
        List<ConfigNode> items = keysNode.nonEmptyList();
        for (int index = 0; index < items.size(); index++) {
            ConfigNode item = items.get(index);
            if (!item.checkMapping(FIELDS)) {
                continue;
            }
            ConfigNode keyNode = item.field("key");
            Optional<String> key = keyNode.requiredSecret();
            Integer first = key.isPresent() ? firstIndex.putIfAbsent(key.get(), index) : null;
            if (first != null) {
                // a key listed twice would get double its share; name the first by index, never by value
                keyNode.problem("same key as keys[" + first + "]");
            }
            keys.add(new KeyConfig(key.orElse(null),
                    item.field("label").text().filter(label -> !label.isEmpty()).orElse(null),
                    item.field("weight").integer(1).orElse(DEFAULT_WEIGHT),
                    item.field("rpm").integer(1).orElse(null),
                    item.field("tpm").longInteger(1).orElse(null),
                    item.field("rpd").integer(1).orElse(null),
                    item.field("tpd").longInteger(1).orElse(null),
                    item.field("tpmMonth").longInteger(1).orElse(null),
                    item.field("rollout").positiveDuration().orElse(null),
                    item.field("retiring").bool().orElse(false)));
        }
        return keys;
    }
}
