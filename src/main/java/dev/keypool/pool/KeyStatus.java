package dev.keypool.pool;

import java.time.Instant;
import java.util.Objects;

/**
 * A key's state together with its cooling deadline. Immutable, so that a whole transition is one compare-and-set
 * on the key and concurrent outcomes cannot interleave half-way (two 429s always leave the later deadline).
 * The transition methods are pure: they return {@code this} when nothing changes.
 */
record KeyStatus(KeyState state, Instant coolingUntil) {

    static final KeyStatus ACTIVE = new KeyStatus(KeyState.ACTIVE, null);
    static final KeyStatus DISABLED = new KeyStatus(KeyState.DISABLED, null);

    KeyStatus {
        Objects.requireNonNull(state, "state");
        if ((state == KeyState.COOLING) != (coolingUntil != null)) {
            throw new IllegalArgumentException("a cooling deadline exactly when COOLING");
        }
    }

    /** Cooling until {@code deadline} or the later deadline already set; a disabled key stays disabled. */
    KeyStatus coolUntil(Instant deadline) {
        return switch (state) {
            case ACTIVE -> new KeyStatus(KeyState.COOLING, deadline);
            case COOLING -> deadline.isAfter(coolingUntil) ? new KeyStatus(KeyState.COOLING, deadline) : this;
            case DISABLED -> this;
        };
    }

    /** ACTIVE again once the deadline is reached (the deadline itself counts as over). */
    KeyStatus expireCooling(Instant now) {
        return state == KeyState.COOLING && !now.isBefore(coolingUntil) ? ACTIVE : this;
    }

    /** One transition: the status replaced and the status now in place (the same object when nothing changed). */
    record Change(KeyStatus before, KeyStatus after) {

        boolean changed() {
            return before != after;
        }

        boolean entered(KeyState state) {
            return before.state() != state && after.state() == state;
        }
    }
}
