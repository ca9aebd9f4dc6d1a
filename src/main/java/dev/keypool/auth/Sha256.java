package dev.keypool.auth;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;

/** SHA-256 of secrets (API keys, tokens): what KeyPool keeps and compares instead of the secret itself. */
public final class Sha256 {

    private Sha256() {
    }

    /** SHA-256 of the UTF-8 bytes of {@code text}. */
    public static byte[] of(String text) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8));
        } catch (NoSuchAlgorithmException e) {
            // every Java platform must provide SHA-256, so this cannot happen on a conforming JVM
            throw new IllegalStateException("SHA-256 not available", e);
        }
    }

    /** Whether {@code presented} hashes to {@code expectedHash}, in time that does not depend on where they differ. */
    public static boolean matches(byte[] expectedHash, String presented) {
        return MessageDigest.isEqual(expectedHash, of(presented));
    }
}
