package dev.keypool.config;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * The {@code alerts:} block. Each rule under {@code rules} is {@code true}/{@code false}, or a mapping with
 * {@code enabled} and the rule's own thresholds; a rule left out is on with its defaults ({@link AlertsConfig#DEFAULT}).
 */
final class AlertsBinder {

    /** A Camel endpoint URI starts with its component's scheme: {@code http:}, {@code smtp:}, {@code kafka:}. */
    private static final Pattern ENDPOINT_URI = Pattern.compile("[a-zA-Z][a-zA-Z0-9+.-]*:.+");

    /** The thresholds each rule takes besides {@code enabled}. */
    private static final Map<String, Set<String>> THRESHOLDS = Map.of(
            "quota", Set.of("percent"),
            "tenantBudget", Set.of("percent"),
            "channelErrors", Set.of("errors", "minutes"));

    AlertsConfig bind(ConfigNode node) {
        AlertsConfig defaults = AlertsConfig.DEFAULT;
        if (node.isAbsent() || !node.checkMapping(Set.of("sinks", "period", "rules"))) {
            return defaults;
        }
        List<String> sinks = new ArrayList<>();
        for (ConfigNode sink : node.field("sinks").list()) {
            // a sink's URI may hold a password or a webhook's secret path: no message may quote it
            sink.requiredSecret().ifPresent(uri -> {
                if (ENDPOINT_URI.matcher(uri).matches()) {
                    sinks.add(uri);
                } else {
                    sink.problem("must be a Camel endpoint URI such as http://host/hook, smtp://host?to=ops@example.com "
                            + "or kafka:topic");
                }
            });
        }
        Duration period = node.field("period").positiveDuration().orElse(defaults.period());
        Set<String> off = new HashSet<>();
        int quotaPercent = defaults.quotaPercent();
        int budgetPercent = defaults.budgetPercent();
        int errors = defaults.channelErrors();
        Duration errorWindow = defaults.channelErrorWindow();
        ConfigNode rules = node.field("rules");
        for (Map.Entry<String, ConfigNode> entry : rules.entries().entrySet()) {
            String name = entry.getKey();
            ConfigNode rule = entry.getValue();
            if (!AlertsConfig.RULES.contains(name)) {
                rule.problem("unknown rule (known: " + String.join(", ", AlertsConfig.RULES) + ")");
                continue;
            }
            if (!enabled(rule, name)) {
                off.add(name);
            }
            if (rule.isAbsent() || !rule.isMapping()) {
                continue;
            }
            switch (name) {
                case "quota" -> quotaPercent = percent(rule).orElse(quotaPercent);
                case "tenantBudget" -> budgetPercent = percent(rule).orElse(budgetPercent);
                case "channelErrors" -> {
                    errors = rule.field("errors").integer(1).orElse(errors);
                    errorWindow = rule.field("minutes").integer(1).map(Duration::ofMinutes).orElse(errorWindow);
                }
                default -> { }
            }
        }
        return new AlertsConfig(sinks, period, off, quotaPercent, budgetPercent, errors, errorWindow);
    }

    /** {@code rule: false}, or {@code rule: {enabled: false, ...}}: off; anything else on. */
    private static boolean enabled(ConfigNode rule, String name) {
        if (rule.isAbsent()) {
            return true;
        }
        if (!rule.isMapping()) {
            return rule.bool().orElse(true);
        }
        Set<String> fields = new HashSet<>(THRESHOLDS.getOrDefault(name, Set.of()));
        fields.add("enabled");
        rule.checkMapping(fields);
        return rule.field("enabled").bool().orElse(true);
    }

    private static Optional<Integer> percent(ConfigNode rule) {
        return rule.field("percent").integer(1, 100);
    }
}
