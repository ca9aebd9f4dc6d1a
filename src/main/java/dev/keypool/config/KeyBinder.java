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
            "rollout", "retiring", "tenant");
    private static final int DEFAULT_WEIGHT = 1;

    /**
     * @param tenants receives each {@code tenant:} of a key with its node, to be checked once the tenants are read
     */
    List<KeyConfig> bind(ConfigNode keysNode, List<ChannelReferences.Ref> tenants) {
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
                    item.field("retiring").bool().orElse(false),
                    tenant(item.field("tenant"), tenants)));
        }
        return keys;
    }

    private static String tenant(ConfigNode node, List<ChannelReferences.Ref> tenants) {
        if (node.isAbsent()) {
            return null;
        }
        Optional<String> name = node.requiredText();
        name.ifPresent(n -> tenants.add(new ChannelReferences.Ref(node, n)));
        return name.orElse(null);
    }
}
