package dev.keypool.tenant;

import java.security.MessageDigest;
import java.time.Instant;
import java.util.HexFormat;

import dev.keypool.auth.Sha256;

/**
 * What lets a client in as a tenant (design §7): the SHA-256 of its token, the hash of its previous token while a
 * rotation's grace period lasts, and the moment the tenant expires (null: never). Only hashes are held.
 */
public final class TenantAccess {

    private static final byte[] NONE = new byte[0];

    private final byte[] tokenHash;
    private final byte[] previousHash;
    private final Instant previousUntil;
    private final Instant expiresAt;

    /**
     * @param tokenHash     SHA-256 of the token
     * @param previousHash  SHA-256 of the token before the last rotation, null for none
     * @param previousUntil until when the previous token is still taken (exclusive)
     * @param expiresAt     from when the tenant is refused, null for never
     */
    public TenantAccess(byte[] tokenHash, byte[] previousHash, Instant previousUntil, Instant expiresAt) {
        if (tokenHash == null || tokenHash.length != 32) {
            throw new IllegalArgumentException("a tenant needs the SHA-256 of its token");
        }
        this.tokenHash = tokenHash.clone();
        this.previousHash = previousHash == null || previousUntil == null ? NONE : previousHash.clone();
        this.previousUntil = previousHash == null ? null : previousUntil;
        this.expiresAt = expiresAt;
    }

    /** A token that never expires and has no predecessor: a tenant of keypool.yaml. */
    public static TenantAccess token(String token) {
        return new TenantAccess(Sha256.of(token), null, null, null);
    }

    /** The same access from hex hashes, as the store keeps them. */
    public static TenantAccess ofHex(String tokenHash, String previousHash, Instant previousUntil, Instant expiresAt) {
        HexFormat hex = HexFormat.of();
        return new TenantAccess(hex.parseHex(tokenHash), previousHash == null ? null : hex.parseHex(previousHash),
                previousUntil, expiresAt);
    }

    /**
     * Whether a token hashing to {@code presentedHash} lets its holder in at {@code now}: the tenant has not expired,
     * and it is the token, or the previous one within its grace period. Both are compared whatever the outcome, in
     * time that does not depend on where they differ.
     */
    boolean admits(byte[] presentedHash, Instant now) {
        boolean current = MessageDigest.isEqual(tokenHash, presentedHash);
        boolean previous = MessageDigest.isEqual(previousHash, presentedHash);
        if (expired(now)) {
            return false;
        }
        return current || previous && now.isBefore(previousUntil);
    }

    /** Whether the tenant has expired at {@code now}. */
    public boolean expired(Instant now) {
        return expiresAt != null && !now.isBefore(expiresAt);
    }

    public Instant expiresAt() {
        return expiresAt;
    }

    /** Until when the previous token is taken; null without one. */
    public Instant previousUntil() {
        return previousUntil;
    }
}
