package dev.keypool.admin;

import java.time.Instant;

/**
 * One tenant as the store keeps it (design §9): where it comes from, the fields set through the admin API (JSON of a
 * {@link dev.keypool.config.TenantChange}), the SHA-256 of its token in hex (null for a tenant of keypool.yaml whose
 * token was never rotated: the file's applies), the previous token's hash and until when it is still taken, and
 * whether it was deleted (kept as a row, so that every instance learns of it). {@code version} counts its writes.
 */
public record TenantRecord(String name, Origin origin, String settings, String tokenHash, String previousHash,
                           Instant previousUntil, boolean deleted, Instant createdAt, Instant updatedAt, long version) {

    /** Where a tenant was defined. */
    public enum Origin {
        /** keypool.yaml: the store holds only what the admin API laid over it. */
        FILE,
        /** Created through the admin API. */
        API;

        /** As the store writes it: {@code file}, {@code api}. */
        public String storedName() {
            return name().toLowerCase(java.util.Locale.ROOT);
        }

        public static Origin stored(String name) {
            return valueOf(name.toUpperCase(java.util.Locale.ROOT));
        }
    }

    /** Without the hashes: they are credentials of a kind. */
    @Override
    public String toString() {
        return "TenantRecord[" + name + ", " + origin + (deleted ? ", deleted" : "") + ", version " + version + "]";
    }
}
