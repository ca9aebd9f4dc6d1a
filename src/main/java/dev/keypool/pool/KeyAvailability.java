package dev.keypool.pool;

import java.time.Instant;
import java.util.Objects;

/**
 * Whether a key may be handed out: its state, and while COOLING the deadline of that state. Immutable, so that a
 * whole transition is one compare-and-set on the key and concurrent outcomes cannot interleave half-way (two 429s
 * always leave the later deadline). The transition methods are pure: they return {@code this} when nothing changes.
 */
record KeyAvailability(KeyState state, Instant coolingUntil) {

    static final KeyAvailability ACTIVE = new KeyAvailability(KeyState.ACTIVE, null);
    static final KeyAvailability DISABLED = new KeyAvailability(KeyState.DISABLED, null);

    KeyAvailability {
        Objects.requireNonNull(state, "state");
        if ((state == KeyState.COOLING) != (coolingUntil != null)) {
            throw new IllegalArgumentException("a cooling deadline exactly when COOLING");
        }
    }

    /** Cooling until {@code deadline} or the later deadline already set; a disabled key stays disabled. */
    KeyAvailability coolUntil(Instant deadline) {
        return switch (state) {
            case ACTIVE -> new KeyAvailability(KeyState.COOLING, deadline);
            case COOLING -> deadline.isAfter(coolingUntil) ? new KeyAvailability(KeyState.COOLING, deadline) : this;
            case DISABLED -> this;
        };
    }

    /** ACTIVE again once the deadline is reached (the deadline itself counts as over). */
    KeyAvailability expireCooling(Instant now) {
        return state == KeyState.COOLING && !now.isBefore(coolingUntil) ? ACTIVE : this;
    }

    /** One transition: the status replaced and the status now in place (the same object when nothing changed). */
    record Change(KeyAvailability before, KeyAvailability after) {

        boolean changed() {
            return before != after;
        }

        boolean entered(KeyState state) {
            return before.state() != state && after.state() == state;
        }
    }
}
