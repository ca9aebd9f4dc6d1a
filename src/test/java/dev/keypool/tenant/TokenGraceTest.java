package dev.keypool.tenant;

import java.time.Instant;

import dev.keypool.auth.Sha256;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** A token lets its tenant in until it expires; a rotated token's predecessor only until its grace ends. */
class TokenGraceTest {

    private static final Instant NOW = Instant.parse("2026-06-01T12:00:00Z");

    @Test
    void should_take_the_previous_token_only_within_its_grace() {
        TenantAccess access = new TenantAccess(Sha256.of("new"), Sha256.of("old"), NOW.plusSeconds(60), null);

        assertThat(access.admits(Sha256.of("new"), NOW)).isTrue();
        assertThat(access.admits(Sha256.of("old"), NOW.plusSeconds(59))).isTrue();
        assertThat(access.admits(Sha256.of("old"), NOW.plusSeconds(60))).isFalse();
        assertThat(access.admits(Sha256.of("other"), NOW)).isFalse();
    }

    @Test
    void should_refuse_every_token_from_the_moment_it_expires() {
        TenantAccess access = new TenantAccess(Sha256.of("new"), Sha256.of("old"), NOW.plusSeconds(60), NOW);

        assertThat(access.admits(Sha256.of("new"), NOW.minusMillis(1))).isTrue();
        assertThat(access.admits(Sha256.of("new"), NOW)).isFalse();
        assertThat(access.admits(Sha256.of("old"), NOW)).isFalse();
    }
}
