package dev.keypool.pool;

/**
 * How a key looks to an operator (design §8), derived from its state and its quota; shown in status, never used to
 * choose keys (the effective weight does that).
 */
public enum KeyHealth {
    /** ACTIVE and below 90 % of every quota window. */
    HEALTHY,
    /** ACTIVE but at 90 % or more of a quota window (later also: warming up, rolling out, retiring, error rate). */
    DEGRADED,
    /** COOLING or DISABLED. */
    UNHEALTHY;

    /** The name status shows: {@code healthy}, {@code degraded}, {@code unhealthy}. */
    public String displayName() {
        return name().toLowerCase(java.util.Locale.ROOT);
    }
}
