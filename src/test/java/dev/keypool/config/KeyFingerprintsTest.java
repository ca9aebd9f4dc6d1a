package dev.keypool.config;

import dev.keypool.pool.ApiKey;
import dev.keypool.pool.Fingerprint;
import org.junit.jupiter.api.Test;

import static dev.keypool.config.ConfigFixtures.parse;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * A channel names the keys of its file by fingerprint, as its pool names them: the admin API tells a key of the file
 * from one added at runtime by that name alone, and no raw key comes out of it.
 */
class KeyFingerprintsTest {

    private static final String SECRET_ONE = "sk-zhipu-1";
    private static final String SECRET_TWO = "sk-zhipu-2";

    private final ChannelConfig channel = parse("""
            channels:
              - name: zhipu
                baseUrl: https://example.com/v1
                models: [glm-4]
                keys:
                  - key: ${ZHIPU_KEY_2}
                    label: second
                  - key: ${ZHIPU_KEY_1}
                    label: first
            """).channels().get(0);

    @Test
    void should_name_each_key_of_the_file_by_the_fingerprint_its_pool_gives_it_in_the_files_order() {
        assertThat(channel.keysByFingerprint().keySet())
                .containsExactly(new ApiKey(SECRET_TWO, "x", 1).fingerprint(), new ApiKey(SECRET_ONE, "x", 1).fingerprint());
        assertThat(channel.keysByFingerprint().get(Fingerprint.of(SECRET_ONE)).label()).isEqualTo("first");
        assertThat(channel.keys().get(0).fingerprint()).isEqualTo(Fingerprint.of(SECRET_TWO));
    }

    @Test
    void should_not_know_a_key_added_at_runtime() {
        assertThat(channel.keysByFingerprint()).doesNotContainKey(Fingerprint.of("sk-added-at-runtime"));
    }

    @Test
    void should_never_hand_out_a_raw_key_as_a_fingerprint() {
        assertThat(channel.keysByFingerprint().keySet()).allSatisfy(fingerprint -> {
            assertThat(fingerprint).matches("[0-9a-f]{16}");
            assertThat(fingerprint).doesNotContain(SECRET_ONE).doesNotContain(SECRET_TWO);
        });
    }
}
