package dev.keypool.auth;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.Objects;

import javax.crypto.Cipher;
import javax.crypto.spec.GCMParameterSpec;
import javax.crypto.spec.SecretKeySpec;

/**
 * The key that encrypts provider keys at rest: AES-256-GCM, a random 12-byte nonce per secret, and associated data
 * (the channel and fingerprint) bound to the ciphertext, so that a row moved to another channel or key does not
 * decrypt. Given as 32 random bytes in base64 ({@code openssl rand -base64 32}) rather than a passphrase: nothing to
 * stretch, and no weak passphrase to refuse by guesswork. The JDK's own AES-GCM: no library needed for one cipher.
 */
public final class MasterKey {

    /** The environment variable (or system property) that holds it. */
    public static final String VARIABLE = "KEYPOOL_MASTER_KEY";

    private static final int KEY_BYTES = 32;
    private static final int NONCE_BYTES = 12;
    private static final int TAG_BITS = 128;
    /**
     * 32 random bytes have about 30 distinct values; fewer than 16 is a made-up key (all zeros, a repeated pattern),
     * which a random source would give once in far more than 2^100 tries.
     */
    private static final int MIN_DISTINCT_BYTES = 16;
    private static final SecureRandom RANDOM = new SecureRandom();

    /** A secret as stored: its nonce, and its ciphertext with the GCM tag at the end. */
    public record Sealed(byte[] iv, byte[] ciphertext) {
    }

    /** The secret could not be decrypted: another master key, or a row changed since it was written. */
    public static final class WrongKeyException extends Exception {
        WrongKeyException() {
            super(WRONG_KEY);
        }
    }

    /** Why a stored secret does not decrypt, as logs say it. */
    public static final String WRONG_KEY = VARIABLE + " does not decrypt them: not the master key they were stored "
            + "with, or their rows were altered";

    private final SecretKeySpec key;

    private MasterKey(byte[] key) {
        this.key = new SecretKeySpec(key, "AES");
    }

    /**
     * The master key of a base64 value.
     *
     * @throws IllegalArgumentException saying what is wrong with the value, never quoting it
     */
    public static MasterKey parse(String base64) {
        if (base64 == null || base64.isBlank()) {
            throw new IllegalArgumentException(VARIABLE + " is not set");
        }
        byte[] raw;
        try {
            raw = Base64.getDecoder().decode(base64.strip());
        } catch (IllegalArgumentException notBase64) {
            // the decoder's message quotes a character of the value
            throw new IllegalArgumentException(VARIABLE + " is not base64: give 32 random bytes as base64 "
                    + "(openssl rand -base64 32)");
        }
        if (raw.length != KEY_BYTES) {
            throw new IllegalArgumentException(VARIABLE + " decodes to " + raw.length + " bytes, not 32: give 32 random "
                    + "bytes as base64 (openssl rand -base64 32)");
        }
        boolean[] seen = new boolean[256];
        int distinct = 0;
        for (byte b : raw) {
            if (!seen[b & 0xff]) {
                seen[b & 0xff] = true;
                distinct++;
            }
        }
        if (distinct < MIN_DISTINCT_BYTES) {
            throw new IllegalArgumentException(VARIABLE + " is not random (" + distinct + " distinct bytes of 32): "
                    + "generate one with openssl rand -base64 32");
        }
        return new MasterKey(raw);
    }

    /** {@code secret} encrypted with a fresh nonce, {@code associated} bound to it. */
    public Sealed seal(String secret, String associated) {
        Objects.requireNonNull(secret, "secret");
        byte[] iv = new byte[NONCE_BYTES];
        RANDOM.nextBytes(iv);
        try {
            Cipher cipher = cipher(Cipher.ENCRYPT_MODE, iv, associated);
            return new Sealed(iv, cipher.doFinal(secret.getBytes(StandardCharsets.UTF_8)));
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("AES-GCM is not available in this JVM: " + e.getClass().getSimpleName());
        }
    }

    /**
     * The secret of {@code sealed}, sealed with the same {@code associated}.
     *
     * @throws WrongKeyException when this key did not seal it, or sealed it with other associated data
     */
    public String open(Sealed sealed, String associated) throws WrongKeyException {
        try {
            Cipher cipher = cipher(Cipher.DECRYPT_MODE, sealed.iv(), associated);
            return new String(cipher.doFinal(sealed.ciphertext()), StandardCharsets.UTF_8);
        } catch (GeneralSecurityException | IllegalArgumentException e) {
            // a tag that does not match (AEADBadTagException), a nonce of the wrong length, a truncated row
            throw new WrongKeyException();
        }
    }

    private Cipher cipher(int mode, byte[] iv, String associated) throws GeneralSecurityException {
        // a Cipher is not thread-safe, and keys are added rarely: one per call
        Cipher cipher = Cipher.getInstance("AES/GCM/NoPadding");
        cipher.init(mode, key, new GCMParameterSpec(TAG_BITS, iv));
        cipher.updateAAD(associated.getBytes(StandardCharsets.UTF_8));
        return cipher;
    }

    @Override
    public String toString() {
        return "MasterKey[AES-256]";
    }
}
