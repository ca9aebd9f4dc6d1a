package dev.keypool.fault;

import java.time.Duration;
import java.time.Instant;

import dev.keypool.config.Durations;

/**
 * One injected fault: on the calls of {@code channel} (only those of key {@code key}, a fingerprint, when not null),
 * a share {@code rate} of them suffers {@code kind} until {@code endsAt}. {@code status} is set for STATUS faults,
 * {@code latencyMs} for LATENCY faults.
 */
public record Fault(String id, String channel, String key, FaultKind kind, int status, long latencyMs, double rate,
                    Duration duration, Instant addedAt) {

    public Instant endsAt() {
        return addedAt.plus(duration);
    }

    /** Whether a call of this channel on this key is in the fault's scope. */
    public boolean covers(String channelName, String fingerprint) {
        return channel.equals(channelName) && (key == null || key.equals(fingerprint));
    }

    /** For log lines: {@code status 503 at rate 1.0 on channel [zhipu] (all keys) for 60s}. */
    public String describe() {
        String what = switch (kind) {
            case STATUS -> "status " + status;
            case LATENCY -> "latency " + latencyMs + "ms";
            case TIMEOUT -> "timeout";
            case RESET -> "connection reset";
        };
        return what + " at rate " + rate + " on channel [" + channel + "] " + (key == null ? "(all keys)" : "key " + key)
                + " for " + Durations.format(duration);
    }
}
