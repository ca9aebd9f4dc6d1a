package dev.keypool.pool;

import java.time.Instant;
import java.util.Map;

import dev.keypool.events.StateChange;

/** A key moved from one state to another, or a COOLING key's deadline moved later. */
public record KeyStateChange(Instant at, String channel, String fingerprint, KeyState fromState, KeyState toState,
                             String message) implements StateChange {

    @Override
    public Map<String, String> details() {
        return Map.of("key", fingerprint);
    }
}
