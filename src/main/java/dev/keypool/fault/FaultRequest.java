package dev.keypool.fault;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

import com.fasterxml.jackson.databind.JsonNode;
import dev.keypool.config.Durations;

/**
 * The body of {@code POST /admin/faults}, checked field by field: every problem is reported at once, each with its
 * field, as keypool.yaml's are.
 */
record FaultRequest(String channel, String key, FaultKind kind, int status, long latencyMs, double rate, Duration duration) {

    static final Duration DEFAULT_DURATION = Duration.ofSeconds(60);
    private static final Set<String> FIELDS = Set.of("channel", "key", "kind", "status", "latencyMs", "rate", "duration");
    private static final long MAX_LATENCY_MS = 600_000;

    /**
     * @param keysByChannel the fingerprints of each channel's keys: a fault names a channel that exists, and a key of it
     * @throws Faults.InvalidFault listing every problem
     */
    static FaultRequest parse(JsonNode body, Map<String, Set<String>> keysByChannel) {
        List<String> problems = new ArrayList<>();
        if (body == null || !body.isObject()) {
            throw new Faults.InvalidFault(List.of("body: must be a JSON object"));
        }
        body.fieldNames().forEachRemaining(name -> {
            if (!FIELDS.contains(name)) {
                problems.add(name + ": unknown field (use " + String.join(", ", FIELDS.stream().sorted().toList()) + ")");
            }
        });
        String channel = text(body, "channel", problems, true);
        if (channel != null && !keysByChannel.containsKey(channel)) {
            problems.add("channel: no channel named '" + channel + "'");
        }
        String key = text(body, "key", problems, false);
        if (key != null && channel != null && keysByChannel.containsKey(channel) && !keysByChannel.get(channel).contains(key)) {
            problems.add("key: no key with fingerprint '" + key + "' in channel " + channel);
        }
        String kindName = text(body, "kind", problems, true);
        FaultKind kind = kindName == null ? null : FaultKind.named(kindName).orElse(null);
        if (kindName != null && kind == null) {
            problems.add("kind: unknown kind '" + kindName + "' (use " + FaultKind.names() + ")");
        }
        long status = whole(body, "status", 400, 599, kind == FaultKind.STATUS, problems);
        long latencyMs = whole(body, "latencyMs", 1, MAX_LATENCY_MS, kind == FaultKind.LATENCY, problems);
        double rate = 1.0;
        JsonNode rateNode = body.get("rate");
        if (rateNode != null && !rateNode.isNull()) {
            if (!rateNode.isNumber() || rateNode.asDouble() <= 0 || rateNode.asDouble() > 1) {
                problems.add("rate: must be a number > 0 and <= 1");
            } else {
                rate = rateNode.asDouble();
            }
        }
        Duration duration = DEFAULT_DURATION;
        JsonNode durationNode = body.get("duration");
        if (durationNode != null && !durationNode.isNull()) {
            try {
                duration = Durations.parse(durationNode.asText());
                if (duration.isZero()) {
                    problems.add("duration: must be > 0");
                }
            } catch (IllegalArgumentException invalid) {
                problems.add("duration: " + invalid.getMessage());
            }
        }
        if (!problems.isEmpty()) {
            throw new Faults.InvalidFault(problems);
        }
        return new FaultRequest(channel, key, kind, (int) status, latencyMs, rate, duration);
    }

    private static String text(JsonNode body, String field, List<String> problems, boolean required) {
        JsonNode node = body.get(field);
        if (node == null || node.isNull()) {
            if (required) {
                problems.add(field + ": is required");
            }
            return null;
        }
        if (!node.isTextual() || node.asText().isBlank()) {
            problems.add(field + ": must be a non-blank string");
            return null;
        }
        return node.asText().trim();
    }

    /** A whole number in [min, max], required when {@code required}; 0 when absent or wrong. */
    private static long whole(JsonNode body, String field, long min, long max, boolean required, List<String> problems) {
        JsonNode node = body.get(field);
        if (node == null || node.isNull()) {
            if (required) {
                problems.add(field + ": is required for this kind");
            }
            return 0;
        }
        if (!node.canConvertToExactIntegral() || node.asLong() < min || node.asLong() > max) {
            problems.add(field + ": must be an integer from " + min + " to " + max);
            return 0;
        }
        return node.asLong();
    }
}
