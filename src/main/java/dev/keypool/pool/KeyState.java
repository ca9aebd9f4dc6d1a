package dev.keypool.pool;

/** Whether a key may be handed out. */
public enum KeyState {
    /** Usable. */
    ACTIVE,
    /** Rate limited upstream; usable again once its cooling deadline has passed. */
    COOLING,
    /** Out of rotation until an operator enables it again (rejected credentials or too many failures in a row). */
    DISABLED
}
