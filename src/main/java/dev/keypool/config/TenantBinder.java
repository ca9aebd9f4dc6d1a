package dev.keypool.config;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;

import dev.keypool.quota.Priority;

/** The optional {@code tenants} list; with none the gateway is open. */
final class TenantBinder {

    private static final Set<String> FIELDS = Set.of("name", "token", "rpm", "burst", "tpm", "rpd", "priority",
            "channels", "models", "budget", "borrow", "maxInFlight");
    private static final Set<String> BUDGET_FIELDS = Set.of("daily", "monthly");

    List<TenantConfig> bind(ConfigNode tenantsNode, Set<String> channelNames) {
        List<TenantConfig> tenants = new ArrayList<>();
        UniqueNames names = new UniqueNames("tenant");
        Map<String, Integer> firstIndex = new HashMap<>();
        List<ConfigNode> items = tenantsNode.list();
        for (int index = 0; index < items.size(); index++) {
            ConfigNode item = items.get(index);
            if (!item.checkMapping(FIELDS)) {
                continue;
            }
            Optional<String> name = names.read(item.field("name"));
            ConfigNode tokenNode = item.field("token");
            Optional<String> token = tokenNode.requiredSecret();
            Integer first = token.isPresent() ? firstIndex.putIfAbsent(token.get(), index) : null;
            if (first != null) {
                // the token is how a request finds its tenant, so two tenants cannot share one
                tokenNode.problem("same token as tenants[" + first + "]");
            }
            Integer rpm = item.field("rpm").integer(1).orElse(null);
            ConfigNode burstNode = item.field("burst");
            Integer burst = burstNode.integer(1).orElse(null);
            if (burst != null && rpm == null) {
                burstNode.problem("needs rpm: the burst is the size of the rpm bucket");
            }
            List<ChannelReferences.Ref> channels = ChannelReferences.read(item.field("channels"));
            ChannelReferences.check(channels, channelNames, null);
            ConfigNode budget = item.field("budget");
            boolean budgetRead = !budget.isAbsent() && budget.checkMapping(BUDGET_FIELDS);
            tenants.add(new TenantConfig(name.orElse(null), token.orElse(null), rpm, burst,
                    item.field("tpm").longInteger(1).orElse(null),
                    item.field("rpd").integer(1).orElse(null),
                    priority(item.field("priority")).orElse(Priority.NORMAL),
                    ChannelReferences.names(channels),
                    models(item.field("models")),
                    budgetRead ? usd(budget.field("daily")).orElse(null) : null,
                    budgetRead ? usd(budget.field("monthly")).orElse(null) : null,
                    item.field("borrow").bool().orElse(true),
                    item.field("maxInFlight").integer(1).orElse(null)));
        }
        return tenants;
    }

    static Optional<Priority> priority(ConfigNode node) {
        return node.text().flatMap(text -> {
            Optional<Priority> priority = Priority.named(text);
            if (priority.isEmpty()) {
                node.problem("unknown priority " + Problems.quote(text) + " (use " + Arrays.stream(Priority.values())
                        .map(Priority::configName).collect(Collectors.joining(", ")) + ")");
            }
            return priority;
        });
    }

    /** Model names, each may hold {@code *} wildcards. */
    static List<String> models(ConfigNode node) {
        return node.list().stream().flatMap(item -> item.requiredText().stream()).toList();
    }

    private static Optional<Double> usd(ConfigNode node) {
        return node.decimal().filter(usd -> {
            if (usd <= 0) {
                node.problem("must be > 0 (USD)");
                return false;
            }
            return true;
        });
    }
}
