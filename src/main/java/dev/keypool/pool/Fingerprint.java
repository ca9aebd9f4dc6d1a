package dev.keypool.pool;

import java.util.HexFormat;
import java.util.Objects;

import dev.keypool.auth.Sha256;

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
        return HexFormat.of().formatHex(Sha256.of(secret), 0, HEX_CHARS / 2);
    }
}
