package dev.keypool.tenant;

import java.time.Instant;
import java.util.List;
import java.util.Map;

import dev.keypool.quota.Priority;
import dev.keypool.testing.MutableClock;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** A tenant found before a reload is current after it only when the reload kept it as it was. */
class TenantCurrentTest {

    private final MutableClock clock = new MutableClock(Instant.parse("2026-11-30T10:00:00Z"));

    private Tenant tenant(String name, String token) {
        return new Tenant(name, token, Priority.NORMAL, List.of(), List.of(), true,
                new LocalTenantLimits(name, null, 1, null, null, null, null, clock));
    }

    @Test
    void should_be_current_only_when_the_reload_kept_it() {
        Tenants tenants = new Tenants(List.of(tenant("kept", "token-k"), tenant("changed", "token-c"),
                tenant("removed", "token-r")));
        Tenant kept = tenants.authenticate("token-k").orElseThrow();
        Tenant changed = tenants.authenticate("token-c").orElseThrow();
        Tenant removed = tenants.authenticate("token-r").orElseThrow();

        tenants.replace(List.of("kept", "changed"), Map.of("changed", tenant("changed", "token-c2")));

        assertThat(tenants.isCurrent(kept)).isTrue();
        assertThat(tenants.isCurrent(changed)).isFalse();
        assertThat(tenants.isCurrent(removed)).isFalse();
        assertThat(tenants.tokensHashed()).isEqualTo(3);
    }
}
