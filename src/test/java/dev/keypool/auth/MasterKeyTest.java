package dev.keypool.auth;

import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.util.Arrays;
import java.util.Base64;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Provider keys at rest: AES-256-GCM under a 32-byte master key, bound to their channel and fingerprint. */
class MasterKeyTest {

    private static String randomKey() {
        byte[] raw = new byte[32];
        new SecureRandom().nextBytes(raw);
        return Base64.getEncoder().encodeToString(raw);
    }

    private final MasterKey master = MasterKey.parse(randomKey());

    @Test
    void should_open_what_it_sealed_with_a_fresh_nonce_each_time() throws Exception {
        MasterKey.Sealed first = master.seal("sk-live-secret", "alpha\nfp");
        MasterKey.Sealed second = master.seal("sk-live-secret", "alpha\nfp");

        assertThat(master.open(first, "alpha\nfp")).isEqualTo("sk-live-secret");
        assertThat(first.iv()).hasSize(12);
        assertThat(first.iv()).isNotEqualTo(second.iv());
        assertThat(new String(first.ciphertext(), StandardCharsets.ISO_8859_1)).doesNotContain("sk-live-secret");
    }

    @Test
    void should_not_open_with_another_master_key_or_other_associated_data() {
        MasterKey.Sealed sealed = master.seal("sk-live-secret", "alpha\nfp");

        assertThatThrownBy(() -> MasterKey.parse(randomKey()).open(sealed, "alpha\nfp"))
                .isInstanceOf(MasterKey.WrongKeyException.class);
        assertThatThrownBy(() -> master.open(sealed, "beta\nfp")).isInstanceOf(MasterKey.WrongKeyException.class);
        byte[] altered = sealed.ciphertext().clone();
        altered[0] ^= 1;
        assertThatThrownBy(() -> master.open(new MasterKey.Sealed(sealed.iv(), altered), "alpha\nfp"))
                .isInstanceOf(MasterKey.WrongKeyException.class);
    }

    @Test
    void should_refuse_a_missing_short_or_made_up_master_key_without_quoting_it() {
        String shortKey = Base64.getEncoder().encodeToString("too-short-passphrase".getBytes(StandardCharsets.UTF_8));
        byte[] zeros = new byte[32];
        byte[] pattern = new byte[32];
        Arrays.fill(pattern, 0, 16, (byte) 'a');
        Arrays.fill(pattern, 16, 32, (byte) 'b');

        assertThatThrownBy(() -> MasterKey.parse(null)).hasMessage("KEYPOOL_MASTER_KEY is not set");
        assertThatThrownBy(() -> MasterKey.parse("not*base64-secret"))
                .hasMessageStartingWith("KEYPOOL_MASTER_KEY is not base64").hasMessageNotContaining("secret");
        assertThatThrownBy(() -> MasterKey.parse(shortKey))
                .hasMessageStartingWith("KEYPOOL_MASTER_KEY decodes to 20 bytes, not 32").hasMessageNotContaining(shortKey);
        assertThatThrownBy(() -> MasterKey.parse(Base64.getEncoder().encodeToString(zeros)))
                .hasMessageStartingWith("KEYPOOL_MASTER_KEY is not random");
        assertThatThrownBy(() -> MasterKey.parse(Base64.getEncoder().encodeToString(pattern)))
                .hasMessageStartingWith("KEYPOOL_MASTER_KEY is not random");
    }
}
