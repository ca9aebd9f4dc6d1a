package dev.keypool.pool;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.HexFormat;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class FingerprintTest {

    @Test
    void should_be_first_16_lowercase_hex_chars_of_sha256() throws Exception {
        byte[] digest = MessageDigest.getInstance("SHA-256").digest("sk-test".getBytes(StandardCharsets.UTF_8));
        String expected = HexFormat.of().formatHex(digest).substring(0, 16);

        assertThat(Fingerprint.of("sk-test")).isEqualTo(expected).matches("[0-9a-f]{16}");
    }

    @Test
    void should_differ_for_different_secrets() {
        assertThat(Fingerprint.of("sk-test")).isNotEqualTo(Fingerprint.of("sk-test2"));
    }
}
