package dev.keypool.tenant;

import java.time.Instant;
import java.util.Map;

import dev.keypool.events.StateChange;

/**
 * A tenant created, changed (its limits, its token rotated) or gone (deleted, or removed from keypool.yaml), as
 * {@code GET /admin/events} shows it beside key and breaker changes. It belongs to no channel.
 */
public record TenantStateChange(Instant at, String tenant, Presence fromState, Presence toState, String message)
        implements StateChange {

    /** Whether a tenant of this name is there. */
    public enum Presence {
        ABSENT, PRESENT
    }

    @Override
    public Map<String, String> details() {
        return Map.of("tenant", tenant);
    }

    /** None: a tenant is not a channel's. */
    @Override
    public String channel() {
        return null;
    }
}
