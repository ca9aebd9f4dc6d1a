package dev.keypool.config;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * One place in the parsed YAML tree, with its path ({@code channels[1].keys[0].weight}). Every typed read goes
 * through here: a wrong value is reported once, at its path, and reading carries on with an empty result, so
 * the user sees every problem of the file in one go. Scalars get their {@code ${ENV}} placeholders replaced
 * as they are read.
 */
final class ConfigNode {

    private final JsonNode node;
    private final String path;
    private final Problems problems;
    private final Placeholders placeholders;

    private ConfigNode(JsonNode node, String path, Problems problems, Placeholders placeholders) {
        this.node = node;
        this.path = path;
        this.problems = problems;
        this.placeholders = placeholders;
    }

    static ConfigNode root(JsonNode tree, Problems problems, Placeholders placeholders) {
        return new ConfigNode(tree, "", problems, placeholders);
    }

    ConfigNode field(String name) {
        JsonNode child = node == null ? null : node.get(name);
        return new ConfigNode(child, path.isEmpty() ? name : path + "." + name, problems, placeholders);
    }

    /** Missing and {@code null} are the same to the user: "not set", so the default applies. */
    boolean isAbsent() {
        return node == null || node.isMissingNode() || node.isNull();
    }

    void problem(String message) {
        problems.add(path.isEmpty() ? "top level" : path, message);
    }

    /** Whether this is a mapping, reporting nothing: for a field that is either a scalar or a block. */
    boolean isMapping() {
        return !isAbsent() && node.isObject();
    }

    /** True for a mapping; reports anything else (absent included) and every field not in {@code knownFields}. */
    boolean checkMapping(Set<String> knownFields) {
        if (isAbsent() || !node.isObject()) {
            problem("must be a mapping");
            return false;
        }
        node.fieldNames().forEachRemaining(name -> {
            if (!knownFields.contains(name)) {
                field(name).problem("unknown field");
            }
        });
        return true;
    }

    /** The items of an optional list; empty when absent or not a list (the latter reported). */
    List<ConfigNode> list() {
        if (isAbsent()) {
            return List.of();
        }
        if (!node.isArray()) {
            problem("must be a list");
            return List.of();
        }
        List<ConfigNode> items = new ArrayList<>();
        for (int i = 0; i < node.size(); i++) {
            items.add(new ConfigNode(node.get(i), path + "[" + i + "]", problems, placeholders));
        }
        return items;
    }

    /** The items of a list that must have at least one. */
    List<ConfigNode> nonEmptyList() {
        if (isAbsent()) {
            problem("is required");
            return List.of();
        }
        List<ConfigNode> items = list();
        if (node.isArray() && items.isEmpty()) {
            problem("must not be empty");
        }
        return items;
    }

    /** The entries of an optional free-form mapping (its keys are data, not field names). */
    Map<String, ConfigNode> entries() {
        Map<String, ConfigNode> entries = new LinkedHashMap<>();
        if (isAbsent()) {
            return entries;
        }
        if (!node.isObject()) {
            problem("must be a mapping");
            return entries;
        }
        for (Iterator<String> names = node.fieldNames(); names.hasNext(); ) {
            String name = names.next();
            entries.put(name, field(name));
        }
        return entries;
    }

    /** An optional scalar as text, placeholders replaced and trimmed (env values often carry a stray newline). */
    Optional<String> text() {
        return scalar("a string");
    }

    /** A scalar that must be present and not blank. */
    Optional<String> requiredText() {
        if (isAbsent()) {
            problem("is required");
            return Optional.empty();
        }
        Optional<String> text = text();
        if (text.isPresent() && text.get().isEmpty()) {
            problem("must not be blank");
            return Optional.empty();
        }
        return text;
    }

    /** Like {@link #requiredText()}, for a key or token: remembered so that no message can quote it. */
    Optional<String> requiredSecret() {
        Optional<String> secret = requiredText();
        secret.ifPresent(problems::addSecret);
        return secret;
    }

    Optional<Integer> integer(int min) {
        return wholeNumber(min, Integer.MAX_VALUE).map(Long::intValue);
    }

    Optional<Integer> integer(int min, int max) {
        return wholeNumber(min, max).map(Long::intValue);
    }

    Optional<Long> longInteger(long min) {
        return wholeNumber(min, Long.MAX_VALUE);
    }

    /** {@code true} or {@code false}, nothing else (a typo such as {@code ture} must not read as false). */
    Optional<Boolean> bool() {
        return scalar("true or false").flatMap(text -> {
            if (text.equals("true") || text.equals("false")) {
                return Optional.of(Boolean.parseBoolean(text));
            }
            problem("must be true or false");
            return Optional.empty();
        });
    }

    Optional<Double> decimal() {
        return scalar("a number").flatMap(text -> {
            try {
                double value = Double.parseDouble(text);
                if (Double.isFinite(value)) {
                    return Optional.of(value);
                }
            } catch (NumberFormatException notANumber) {
                // reported below
            }
            problem("must be a number");
            return Optional.empty();
        });
    }

    Optional<Duration> positiveDuration() {
        return duration(false);
    }

    /** A duration that may be 0 ("never"). */
    Optional<Duration> duration() {
        return duration(true);
    }

    private Optional<Duration> duration(boolean zeroAllowed) {
        return scalar("a duration (e.g. 500ms, 30s, 5m)").flatMap(text -> {
            Duration duration;
            try {
                duration = Durations.parse(text);
            } catch (IllegalArgumentException invalid) {
                problem(invalid.getMessage());
                return Optional.empty();
            }
            if (duration.isZero() && !zeroAllowed) {
                problem("must be > 0");
                return Optional.empty();
            }
            return Optional.of(duration);
        });
    }

    private Optional<Long> wholeNumber(long min, long max) {
        return scalar("an integer").flatMap(text -> {
            long value;
            try {
                value = Long.parseLong(text);
            } catch (NumberFormatException notWhole) {
                problem("must be an integer");
                return Optional.empty();
            }
            if (value < min) {
                problem("must be >= " + min);
                return Optional.empty();
            }
            if (value > max) {
                problem("must be <= " + max);
                return Optional.empty();
            }
            return Optional.of(value);
        });
    }

    /**
     * Any scalar as text: YAML's own typing is ignored so that {@code weight: 5} and {@code weight: ${WEIGHT}}
     * (a string until it is resolved) read alike.
     */
    private Optional<String> scalar(String expected) {
        if (isAbsent()) {
            return Optional.empty();
        }
        if (!node.isValueNode()) {
            problem("must be " + expected);
            return Optional.empty();
        }
        return placeholders.resolve(node.asText(), name -> problem("environment variable " + name + " is not set"))
                .map(String::trim);
    }
}
