package dev.keypool.admin;

import java.time.Instant;
import java.util.List;

/**
 * Where the provider keys added through the admin API are kept (design §9, keys at runtime): their secrets only as
 * ciphertext of the master key, so that the store, its backups and its files hold no usable key. One row per channel
 * and fingerprint; with PostgreSQL, every gateway instance reads the same rows.
 */
public interface ProviderKeyStore {

    /**
     * One stored key.
     *
     * @param iv         the AES-GCM nonce of {@code ciphertext}
     * @param ciphertext the key's secret encrypted, GCM tag included
     */
    record Row(String channel, String fingerprint, String label, byte[] iv, byte[] ciphertext, Instant created) {

        @Override
        public String toString() {
            return "Row[channel=" + channel + ", fingerprint=" + fingerprint + ", label=" + label + "]";
        }
    }

    /** The store cannot be read or written now; its message names no secret and no connection string. */
    final class UnavailableException extends RuntimeException {
        public UnavailableException(String message, Throwable cause) {
            super(message, cause);
        }
    }

    /**
     * Keeps {@code row}.
     *
     * @return false, and nothing written, when the channel has a stored key of that fingerprint already
     * @throws UnavailableException when the store cannot be written
     */
    boolean insert(Row row);

    /**
     * Forgets the key.
     *
     * @return whether there was such a row
     * @throws UnavailableException when the store cannot be written
     */
    boolean delete(String channel, String fingerprint);

    /**
     * Every stored key, oldest first.
     *
     * @throws UnavailableException when the store cannot be read
     */
    List<Row> all();
}
