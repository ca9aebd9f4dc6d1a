package dev.keypool.gateway;

import java.util.Set;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class BodyLimitsTest {

    private final BodyLimits limits = new BodyLimits(4, 25, 64, 50, Set.of("/v1/files", "/v1/audio/transcriptions"));

    @Test
    void should_give_each_path_its_limit_capped_by_the_server() {
        assertThat(limits.limitFor("/v1/chat/completions")).isEqualTo(4);
        assertThat(limits.limitFor("/v1/audio/transcriptions")).isEqualTo(25);
        assertThat(limits.limitFor("/v1/audio/speech")).isEqualTo(25);
        assertThat(limits.limitFor("/v1/files")).isEqualTo(50);
        assertThat(limits.limitFor("/v1/files/file-1/content")).isEqualTo(4);
    }

    @Test
    void should_name_every_limit_it_gives_once() {
        assertThat(limits.all()).containsExactlyInAnyOrder(4L, 25L, 50L);
        // all three capped alike by the server
        assertThat(new BodyLimits(100, 200, 300, 10, Set.of()).all()).containsExactly(10L);
    }

    @Test
    void should_spool_only_uploads() {
        assertThat(limits.isUpload("/v1/files")).isTrue();
        assertThat(limits.isUpload("/v1/audio/transcriptions")).isTrue();
        assertThat(limits.isUpload("/v1/audio/speech")).isFalse();
        assertThat(limits.isUpload("/v1/chat/completions")).isFalse();
    }
}
