package dev.keypool.config;

import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.keypool.quota.Priority;

/**
 * The fields of a tenant set through the admin API (design §9): those of keypool.yaml's tenant block but its name and
 * token, plus {@code expiresAt}. Each value lies over the file's (for a tenant created through the API, over the
 * defaults); a limit of 0 lifts the file's limit. In a patch, {@code null} gives the field back to the file. Read and
 * checked by the rules keypool.yaml's tenants are checked by, each problem naming its field.
 */
public final class TenantChange {

    /** The fields a change may name, as in keypool.yaml ({@code budget} with {@code daily} and {@code monthly}). */
    public static final Set<String> FIELDS = Set.of("rpm", "burst", "tpm", "rpd", "priority", "channels", "models",
            "budget", "borrow", "maxInFlight", "expiresAt");
    private static final Set<String> BUDGET_FIELDS = Set.of("daily", "monthly");
    private static final ObjectMapper MAPPER = new ObjectMapper();
    private static final TenantChange NONE = new TenantChange(Map.of());

    /** By field ({@code budget.daily} for the budget's), in the order read; a null value gives the field back. */
    private final Map<String, Object> values;

    private TenantChange(Map<String, Object> values) {
        this.values = Collections.unmodifiableMap(new LinkedHashMap<>(values));
    }

    public static TenantChange none() {
        return NONE;
    }

    /**
     * A change sent to the admin API, checked: unknown fields, wrong types, bounds, channels that do not exist.
     *
     * @param extraFields fields the caller reads itself (a new tenant's {@code name}), skipped here
     * @throws ConfigException with every problem, each {@code <field>: <what is wrong>}
     */
    public static TenantChange read(JsonNode body, Set<String> channelNames, Set<String> extraFields) {
        Problems problems = new Problems();
        if (body == null || !body.isObject()) {
            problems.add("body", "must be a JSON object such as {\"rpm\":60,\"models\":[\"gpt-*\"]}");
            throw new ConfigException("the request body", problems.lines());
        }
        TenantChange change = read(ConfigNode.root(body, problems, Placeholders.NONE), body, channelNames, extraFields);
        if (!problems.isEmpty()) {
            throw new ConfigException("the request body", problems.lines());
        }
        return change;
    }

    /**
     * The name of a tenant to create, checked as keypool.yaml's tenant names are.
     *
     * @throws ConfigException naming the problem
     */
    public static String name(JsonNode body) {
        Problems problems = new Problems();
        JsonNode tree = body != null && body.isObject() ? body : MAPPER.createObjectNode();
        java.util.Optional<String> name = new UniqueNames("tenant")
                .read(ConfigNode.root(tree, problems, Placeholders.NONE).field("name"));
        if (!problems.isEmpty()) {
            throw new ConfigException("the request body", problems.lines());
        }
        return name.orElseThrow();
    }

    /** A change as the store keeps it ({@link #toJson}); channels are not checked, a reload may have removed one since. */
    public static TenantChange stored(String json) {
        if (json == null || json.isBlank()) {
            return NONE;
        }
        try {
            JsonNode tree = MAPPER.readTree(json);
            Problems problems = new Problems();
            TenantChange change = read(ConfigNode.root(tree, problems, Placeholders.NONE), tree, null, Set.of());
            if (!problems.isEmpty()) {
                throw new ConfigException("the stored tenant", problems.lines());
            }
            return change;
        } catch (java.io.IOException e) {
            throw new IllegalArgumentException("stored tenant settings are not JSON", e);
        }
    }

    private static TenantChange read(ConfigNode root, JsonNode body, Set<String> channelNames, Set<String> extraFields) {
        Map<String, Object> values = new LinkedHashMap<>();
        for (Iterator<String> names = body.fieldNames(); names.hasNext(); ) {
            String name = names.next();
            if (extraFields.contains(name)) {
                continue;
            }
            ConfigNode node = root.field(name);
            JsonNode value = body.get(name);
            if (name.equals("name")) {
                node.problem("cannot be changed; delete the tenant and create it anew");
            } else if (name.equals("token")) {
                node.problem("is made by the gateway and answered once; POST /admin/tenants/{name}/rotate for a new one");
            } else if (!FIELDS.contains(name)) {
                node.problem("unknown field; fields: " + String.join(", ", new TreeSet<>(FIELDS)));
            } else if (value.isNull()) {
                if (name.equals("budget")) {
                    values.put("budget.daily", null);
                    values.put("budget.monthly", null);
                } else {
                    values.put(name, null);
                }
            } else {
                readField(name, node, value, channelNames, values);
            }
        }
        return new TenantChange(values);
    }

    private static void readField(String name, ConfigNode node, JsonNode value, Set<String> channelNames,
                                  Map<String, Object> values) {
        switch (name) {
            case "rpm", "rpd" -> node.integer(0).ifPresent(v -> values.put(name, v));
            case "burst" -> node.integer(1).ifPresent(v -> values.put(name, v));
            case "maxInFlight" -> node.integer(0).ifPresent(v -> values.put(name, v));
            case "tpm" -> node.longInteger(0).ifPresent(v -> values.put(name, v));
            case "priority" -> TenantBinder.priority(node).ifPresent(v -> values.put(name, v));
            case "borrow" -> node.bool().ifPresent(v -> values.put(name, v));
            case "models" -> {
                if (value.isArray()) {
                    values.put(name, TenantBinder.models(node));
                } else {
                    node.problem("must be a list");
                }
            }
            case "channels" -> {
                if (value.isArray()) {
                    List<ChannelReferences.Ref> refs = ChannelReferences.read(node);
                    if (channelNames != null) {
                        ChannelReferences.check(refs, channelNames, null);
                    }
                    values.put(name, ChannelReferences.names(refs));
                } else {
                    node.problem("must be a list");
                }
            }
            case "budget" -> {
                if (node.checkMapping(BUDGET_FIELDS)) {
                    for (String period : List.of("daily", "monthly")) {
                        JsonNode usd = value.get(period);
                        if (usd == null) {
                            continue;
                        }
                        ConfigNode field = node.field(period);
                        if (usd.isNull()) {
                            values.put("budget." + period, null);
                        } else {
                            field.decimal().ifPresent(v -> {
                                if (v < 0) {
                                    field.problem("must be >= 0 (USD; 0 lifts the budget)");
                                } else {
                                    values.put("budget." + period, v);
                                }
                            });
                        }
                    }
                }
            }
            case "expiresAt" -> node.text().ifPresent(text -> {
                try {
                    values.put(name, Instant.parse(text));
                } catch (DateTimeParseException e) {
                    node.problem("must be a UTC time such as 2027-01-31T00:00:00Z, or null for never");
                }
            });
            default -> throw new IllegalStateException("field " + name);
        }
    }

    /** This change, then {@code later}: its fields win, and a null of its removes the field. */
    public TenantChange then(TenantChange later) {
        Map<String, Object> merged = new LinkedHashMap<>(values);
        later.values.forEach((field, value) -> {
            if (value == null) {
                merged.remove(field);
            } else {
                merged.put(field, value);
            }
        });
        return new TenantChange(merged);
    }

    /** The fields it sets, {@code budget.daily} and {@code budget.monthly} for the budget's. */
    public Set<String> fields() {
        return values.keySet();
    }

    public boolean isEmpty() {
        return values.isEmpty();
    }

    /** Until when the tenant may be used; null when this change does not say (or sets no end). */
    public Instant expiresAt() {
        return (Instant) values.get("expiresAt");
    }

    /**
     * The tenant {@code base} with this change laid over it: each field set wins, a limit of 0 lifts it. A
     * {@code maxInFlight} of 0 stays 0: no limit, not even the gateway's default.
     */
    public TenantConfig over(TenantConfig base) {
        return new TenantConfig(base.name(), base.token(),
                limit(base.rpm(), "rpm"), (Integer) valueOr("burst", base.burst()), longLimit(base.tpm()),
                limit(base.rpd(), "rpd"), (Priority) valueOr("priority", base.priority()),
                list("channels", base.channels()), list("models", base.models()),
                usd(base.budgetDaily(), "budget.daily"), usd(base.budgetMonthly(), "budget.monthly"),
                (Boolean) valueOr("borrow", base.borrow()), (Integer) valueOr("maxInFlight", base.maxInFlight()));
    }

    /** Problems of a tenant as a change leaves it, which no single field shows: a burst without rpm. */
    public static List<String> problemsOf(TenantConfig tenant) {
        List<String> problems = new ArrayList<>();
        if (tenant.burst() != null && tenant.rpm() == null) {
            problems.add("burst: needs rpm: the burst is the size of the rpm bucket");
        }
        return problems;
    }

    /** The change as JSON, the form {@link #stored} reads (no nulls: only what it sets). */
    public String toJson() {
        ObjectNode json = MAPPER.createObjectNode();
        values.forEach((field, value) -> {
            if (value == null) {
                return;
            }
            if (field.startsWith("budget.")) {
                json.withObject("/budget").put(field.substring("budget.".length()), (Double) value);
            } else if (value instanceof Priority priority) {
                json.put(field, priority.configName());
            } else if (value instanceof Instant instant) {
                json.put(field, instant.toString());
            } else {
                json.set(field, MAPPER.valueToTree(value));
            }
        });
        return json.toString();
    }

    private Object valueOr(String field, Object base) {
        return values.containsKey(field) ? values.get(field) : base;
    }

    private Integer limit(Integer base, String field) {
        Integer value = (Integer) valueOr(field, base);
        return value != null && value == 0 ? null : value;
    }

    private Long longLimit(Long base) {
        Long value = (Long) valueOr("tpm", base);
        return value != null && value == 0 ? null : value;
    }

    private Double usd(Double base, String field) {
        Double value = (Double) valueOr(field, base);
        return value != null && value == 0 ? null : value;
    }

    @SuppressWarnings("unchecked")
    private List<String> list(String field, List<String> base) {
        return (List<String>) valueOr(field, base);
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof TenantChange change && change.values.equals(values);
    }

    @Override
    public int hashCode() {
        return values.hashCode();
    }

    @Override
    public String toString() {
        return "TenantChange" + values;
    }
}
