package dev.keypool.admin;

import java.time.Duration;
import java.time.Instant;
import java.util.Objects;

/**
 * One gateway instance of those sharing a Redis (design §11), as its last heartbeat described it: {@code GET
 * /admin/status} lists them.
 *
 * @param id            {@code keypool.instance-id}: the host and port by default
 * @param configDigest  the first 16 hex digits of the SHA-256 of the keypool.yaml it runs (as last applied)
 * @param heartbeat     how often it beats ({@code keypool.cluster.heartbeat-ms})
 */
public record Member(String id, String version, Instant startedAt, Instant lastHeartbeat, int inFlight,
                     String configDigest, Duration heartbeat) {

    /** Heartbeats an instance may miss before it counts as gone. */
    public static final int MISSED_BEATS = 3;

    public Member {
        Objects.requireNonNull(id, "id");
        Objects.requireNonNull(lastHeartbeat, "lastHeartbeat");
        Objects.requireNonNull(heartbeat, "heartbeat");
    }

    /** Silent for {@link #MISSED_BEATS} heartbeats at {@code now}: killed, cut off from Redis, or stopped. */
    public boolean goneAt(Instant now) {
        return lastHeartbeat.plus(heartbeat.multipliedBy(MISSED_BEATS)).isBefore(now);
    }
}
