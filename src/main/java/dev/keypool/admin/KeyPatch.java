package dev.keypool.admin;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * The body of {@code PATCH /admin/keys/{fingerprint}}: {@code {"weight":3,"rpm":100,...}}. Each field given replaces
 * the key's value from the file; {@code null} gives the file's value back; a limit of 0 lifts the limit. Fields left
 * out stay as they are.
 */
public record KeyPatch(Map<String, Long> values) {

    /** The fields a patch may name: the key's weight and its limits, by their keypool.yaml names. */
    public static final Set<String> FIELDS = Set.of("weight", "rpm", "tpm", "rpd", "tpd", "tpmMonth");
    /**
     * The largest limit a patch may set: shared through Redis, the changes pass through Lua's cjson, which writes 14
     * significant digits, so that a larger number would come back rounded and be dropped (design §11).
     */
    public static final long MAX_LIMIT = 99_999_999_999_999L;

    public KeyPatch {
        values = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(values));
    }

    /**
     * Reads a patch, or throws with every problem of it (unknown fields, wrong types, a weight below 1, a negative or too large limit).
     */
    public static KeyPatch parse(JsonNode body) {
        List<String> problems = new ArrayList<>();
        Map<String, Long> values = new LinkedHashMap<>();
        if (body == null || !body.isObject()) {
            throw new InvalidChangeException(List.of("body: must be a JSON object such as {\"weight\":3,\"rpm\":100}"));
        }
        if (body.isEmpty()) {
            problems.add("body: names nothing to change; fields: " + String.join(", ", sorted()));
        }
        for (Iterator<Map.Entry<String, JsonNode>> fields = body.fields(); fields.hasNext(); ) {
            Map.Entry<String, JsonNode> field = fields.next();
            String name = field.getKey();
            JsonNode value = field.getValue();
            if (!FIELDS.contains(name)) {
                problems.add(name + ": unknown field; fields: " + String.join(", ", sorted()));
            } else if (value.isNull()) {
                values.put(name, null);
            } else if (!value.isIntegralNumber() || !value.canConvertToLong()) {
                problems.add(name + ": must be a whole number or null");
            } else if (name.equals("weight") && value.asLong() < 1) {
                problems.add("weight: must be >= 1");
            } else if (name.equals("weight") && value.asLong() > Integer.MAX_VALUE) {
                problems.add("weight: must be <= " + Integer.MAX_VALUE);
            } else if (value.asLong() < 0) {
                problems.add(name + ": must be >= 0 (0 lifts the limit)");
            } else if (value.asLong() > MAX_LIMIT) {
                problems.add(name + ": must be <= " + MAX_LIMIT);
            } else {
                values.put(name, value.asLong());
            }
        }
        if (!problems.isEmpty()) {
            throw new InvalidChangeException(problems);
        }
        return new KeyPatch(values);
    }

    private static List<String> sorted() {
        return FIELDS.stream().sorted().toList();
    }
}
