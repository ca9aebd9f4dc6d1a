package dev.keypool.breaker;

import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * A channel breaker's state as other gateway instances need it to take it over (design §11): the state, when an OPEN one
 * tries HALF_OPEN again, whether an operator holds it open, and the half-open period its probes count against.
 *
 * <p>{@code version} orders the decisions made about one channel across instances: every decision made on an instance
 * (a trip, a half-open verdict, an operator's hand) gets {@code max(version + 1, now in ms)}, and an instance that
 * takes over another's decision takes its version too. So a later decision always has the larger version, also after
 * instances were apart (Redis lost) or restarted, and two instances compare the same way whichever hears which first.
 *
 * @param until   when an OPEN breaker next tries HALF_OPEN; null when not OPEN or held open by an operator
 * @param period  the half-open period the probes count against (the version of the decision that opened it); 0 when
 *                not HALF_OPEN
 */
public record BreakerSnapshot(String channel, long version, BreakerState state, Instant until, boolean forced,
                              String trippedBy, long period, Instant at) {

    public BreakerSnapshot {
        Objects.requireNonNull(channel, "channel");
        Objects.requireNonNull(state, "state");
        Objects.requireNonNull(at, "at");
    }

    /**
     * Whether this decision replaces {@code other}: the larger version; on equal versions (two instances decided at
     * once) OPEN over HALF_OPEN over CLOSED, since a channel failing on one instance fails for all, and of two OPEN the
     * later try, as a cooling deadline is only ever extended.
     */
    public boolean newerThan(BreakerSnapshot other) {
        if (version != other.version) {
            return version > other.version;
        }
        if (state != other.state) {
            return caution(state) > caution(other.state);
        }
        if (state == BreakerState.OPEN && forced != other.forced) {
            return forced;
        }
        return state == BreakerState.OPEN && until != null && other.until != null && until.isAfter(other.until);
    }

    private static int caution(BreakerState state) {
        return switch (state) {
            case CLOSED -> 0;
            case HALF_OPEN -> 1;
            case OPEN -> 2;
        };
    }

    /** As flat text fields (a Redis hash, a pub/sub message); channel names and reasons only, no key. */
    public Map<String, String> toFields() {
        Map<String, String> fields = new LinkedHashMap<>();
        fields.put("channel", channel);
        fields.put("version", Long.toString(version));
        fields.put("state", state.name());
        fields.put("until", until == null ? "" : Long.toString(until.toEpochMilli()));
        fields.put("forced", Boolean.toString(forced));
        fields.put("trippedBy", trippedBy == null ? "" : trippedBy);
        fields.put("period", Long.toString(period));
        fields.put("at", Long.toString(at.toEpochMilli()));
        return fields;
    }

    /**
     * The snapshot of {@link #toFields}.
     *
     * @throws IllegalArgumentException when the fields are not such a snapshot
     */
    public static BreakerSnapshot fromFields(Map<String, String> fields) {
        try {
            String until = fields.getOrDefault("until", "");
            String trippedBy = fields.getOrDefault("trippedBy", "");
            return new BreakerSnapshot(Objects.requireNonNull(fields.get("channel"), "channel"),
                    Long.parseLong(fields.get("version")), BreakerState.valueOf(fields.get("state")),
                    until.isEmpty() ? null : Instant.ofEpochMilli(Long.parseLong(until)),
                    Boolean.parseBoolean(fields.get("forced")), trippedBy.isEmpty() ? null : trippedBy,
                    Long.parseLong(fields.getOrDefault("period", "0")), Instant.ofEpochMilli(Long.parseLong(fields.get("at"))));
        } catch (RuntimeException e) {
            throw new IllegalArgumentException("not a breaker snapshot: " + fields.keySet(), e);
        }
    }
}
