package dev.keypool.auth;

import java.util.HashSet;
import java.util.Set;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** A tenant token is kp- and 43 base62 digits of 32 random bytes; its hash is SHA-256 in hex. */
class TenantTokensTest {

    @Test
    void should_make_distinct_tokens_of_letters_and_digits() {
        Set<String> tokens = new HashSet<>();
        for (int i = 0; i < 100; i++) {
            tokens.add(TenantTokens.newToken());
        }

        assertThat(tokens).hasSize(100).allMatch(token -> token.matches("kp-[0-9A-Za-z]{43}"));
    }

    @Test
    void should_write_every_32_byte_number_in_43_digits() {
        byte[] max = new byte[32];
        java.util.Arrays.fill(max, (byte) 0xff);

        assertThat(TenantTokens.base62(new byte[32])).isEqualTo("0".repeat(43));
        assertThat(TenantTokens.base62(max)).hasSize(43).doesNotStartWith("0");
    }

    @Test
    void should_hash_as_sha256_hex() {
        assertThat(TenantTokens.hash("abc"))
                .isEqualTo("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    }
}
