package dev.keypool.pool;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Objects;

/**
 * A short, stable name for a secret that is safe to log, show and use as a metrics label: enough of its SHA-256
 * to tell keys apart, far too little to recover the key.
 */
public final class Fingerprint {

    private static final int HEX_CHARS = 16;

    private Fingerprint() {
    }

    /** The first 16 lowercase hex characters of SHA-256(secret, UTF-8). */
    public static String of(String secret) {
        Objects.requireNonNull(secret, "secret");
        byte[] digest = sha256().digest(secret.getBytes(StandardCharsets.UTF_8));
        return HexFormat.of().formatHex(digest, 0, HEX_CHARS / 2);
    }

    private static MessageDigest sha256() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            // every Java platform must provide SHA-256, so this cannot happen on a conforming JVM
            throw new IllegalStateException("SHA-256 not available", e);
        }
    }
}
