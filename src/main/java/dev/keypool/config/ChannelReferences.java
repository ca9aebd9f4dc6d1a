package dev.keypool.config;

import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * Lists of channel names inside the file: a channel's fallback chain and a tenant's allowed channels.
 * They are read with the channel they belong to but can only be checked once every channel name is known,
 * so each name keeps its node for reporting later.
 */
final class ChannelReferences {

    record Ref(ConfigNode node, String name) {
    }

    private ChannelReferences() {
    }

    static List<Ref> read(ConfigNode list) {
        return list.list().stream()
                .flatMap(item -> item.requiredText().map(name -> new Ref(item, name)).stream())
                .toList();
    }

    /**
     * Each reference must name a configured channel, once.
     *
     * @param self the channel that owns the list, which may not name itself; null when the owner is no channel
     */
    static void check(List<Ref> refs, Set<String> channels, String self) {
        Set<String> listed = new HashSet<>();
        for (Ref ref : refs) {
            if (!channels.contains(ref.name())) {
                ref.node().problem("unknown channel " + Problems.quote(ref.name()));
            } else if (ref.name().equals(self)) {
                ref.node().problem("a channel cannot fall back to itself");
            } else if (!listed.add(ref.name())) {
                ref.node().problem("duplicate channel " + Problems.quote(ref.name()));
            }
        }
    }

    static List<String> names(List<Ref> refs) {
        return refs.stream().map(Ref::name).toList();
    }
}
