package dev.keypool.config;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;

import dev.keypool.routing.Balance;
import dev.keypool.routing.CachePolicy;
import dev.keypool.routing.ModelGroup;
import dev.keypool.routing.Sticky;
import dev.keypool.routing.Target;

/** The optional {@code modelGroups} list: model names served by weighted, tiered targets (design §16). */
final class ModelGroupBinder {

    private static final Set<String> FIELDS = Set.of("name", "balance", "sticky", "maxPriceRatio", "targets", "cache");
    private static final Set<String> CACHE_FIELDS = Set.of("ttl", "when", "staleFor", "shared");
    private static final Set<String> TARGET_FIELDS = Set.of("channel", "model", "weight", "tier");

    /** @param channels the channels bound before, by name */
    List<ModelGroup> bind(ConfigNode groupsNode, Map<String, ChannelConfig> channels) {
        List<ModelGroup> groups = new ArrayList<>();
        Set<String> names = new HashSet<>();
        for (ConfigNode item : groupsNode.list()) {
            if (!item.checkMapping(FIELDS)) {
                continue;
            }
            // a group is a model name clients ask for, so model names' characters (dots, slashes) are allowed
            ConfigNode nameNode = item.field("name");
            Optional<String> name = nameNode.requiredText().filter(n -> {
                if (!names.add(n)) {
                    nameNode.problem("duplicate model group name " + Problems.quote(n));
                }
                return true;
            });
            Balance balance = named(item.field("balance"), Balance::named, Balance.names()).orElse(Balance.WEIGHTED);
            Sticky sticky = named(item.field("sticky"), Sticky::named, Sticky.names()).orElse(Sticky.NONE);
            ConfigNode ratioNode = item.field("maxPriceRatio");
            Double ratio = ratioNode.decimal().filter(r -> {
                if (r < 1) {
                    ratioNode.problem("must be >= 1 (the most a walk may pay, as a multiple of the first target's price)");
                }
                return r >= 1;
            }).orElse(null);
            List<Target> targets = new ArrayList<>();
            Set<String> seen = new HashSet<>();
            for (ConfigNode targetNode : item.field("targets").nonEmptyList()) {
                target(targetNode, channels).ifPresent(t -> {
                    if (!seen.add(t.channel() + "/" + t.model())) {
                        targetNode.problem("duplicate target " + Problems.quote(t.channel() + "/" + t.model()));
                    } else {
                        targets.add(t);
                    }
                });
            }
            CachePolicy cache = cache(item.field("cache"));
            if (name.isPresent() && !targets.isEmpty()) {
                groups.add(new ModelGroup(name.get(), balance, sticky, ratio, targets, cache));
            }
        }
        return groups;
    }

    /** The group's response cache, or null when it keeps none. */
    private static CachePolicy cache(ConfigNode node) {
        if (node.isAbsent() || !node.checkMapping(CACHE_FIELDS)) {
            return null;
        }
        Duration ttl = node.field("ttl").positiveDuration().orElse(CachePolicy.DEFAULT_TTL);
        CachePolicy.When when = named(node.field("when"), CachePolicy.When::named, CachePolicy.When.names())
                .orElse(CachePolicy.When.DETERMINISTIC);
        Duration staleFor = node.field("staleFor").duration().orElse(CachePolicy.DEFAULT_STALE_FOR);
        boolean shared = node.field("shared").bool().orElse(false);
        return new CachePolicy(ttl, when, staleFor, shared);
    }

    private static Optional<Target> target(ConfigNode node, Map<String, ChannelConfig> channels) {
        if (!node.checkMapping(TARGET_FIELDS)) {
            return Optional.empty();
        }
        ConfigNode channelNode = node.field("channel");
        Optional<ChannelConfig> channel = channelNode.requiredText().flatMap(name -> {
            ChannelConfig config = channels.get(name);
            if (config == null) {
                channelNode.problem("unknown channel " + Problems.quote(name));
            }
            return Optional.ofNullable(config);
        });
        ConfigNode modelNode = node.field("model");
        Optional<String> model = modelNode.requiredText();
        if (channel.isPresent() && model.isPresent() && !channel.get().servesModel(model.get())) {
            modelNode.problem("channel " + Problems.quote(channel.get().name()) + " does not serve model "
                    + Problems.quote(model.get()) + " (its models: " + channel.get().models() + ")");
            return Optional.empty();
        }
        int weight = node.field("weight").integer(0).orElse(1);
        int tier = node.field("tier").integer(1).orElse(1);
        if (channel.isEmpty() || model.isEmpty()) {
            return Optional.empty();
        }
        return Optional.of(new Target(channel.get().name(), model.get(), weight, tier));
    }

    private static <T> Optional<T> named(ConfigNode node, Function<String, Optional<T>> byName,
            String known) {
        return node.text().flatMap(text -> {
            Optional<T> value = byName.apply(text);
            if (value.isEmpty()) {
                node.problem("unknown value " + Problems.quote(text) + " (use " + known + ")");
            }
            return value;
        });
    }
}
