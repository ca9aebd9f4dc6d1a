package dev.keypool.auth;

import java.math.BigInteger;
import java.security.SecureRandom;
import java.util.HexFormat;

/**
 * Tokens of tenants made through the admin API: {@code kp-} and 32 random bytes in base62 (letters and digits only,
 * so that a token survives being pasted into a shell, a URL or an environment variable). The gateway keeps only
 * {@link #hash}. Base62 is a dozen lines here rather than a dependency: the JDK has none, and nothing else needs it.
 */
public final class TenantTokens {

    /** What every token made here starts with, so that a leaked one is recognisable (secret scanners, logs). */
    public static final String PREFIX = "kp-";
    private static final String DIGITS = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
    private static final BigInteger BASE = BigInteger.valueOf(DIGITS.length());
    /** Digits of the largest 32-byte number in base 62: every token has this many, leading zeros kept. */
    private static final int LENGTH = 43;
    private static final SecureRandom RANDOM = new SecureRandom();

    private TenantTokens() {
    }

    /** A new token: {@code kp-} + base62 of 32 bytes from {@link SecureRandom}. */
    public static String newToken() {
        byte[] bytes = new byte[32];
        RANDOM.nextBytes(bytes);
        return PREFIX + base62(bytes);
    }

    /** The SHA-256 of a token in lower-case hex, as the store keeps it. */
    public static String hash(String token) {
        return HexFormat.of().formatHex(Sha256.of(token));
    }

    static String base62(byte[] bytes) {
        BigInteger value = new BigInteger(1, bytes);
        char[] digits = new char[LENGTH];
        for (int i = LENGTH - 1; i >= 0; i--) {
            BigInteger[] divided = value.divideAndRemainder(BASE);
            digits[i] = DIGITS.charAt(divided[1].intValue());
            value = divided[0];
        }
        return new String(digits);
    }
}
