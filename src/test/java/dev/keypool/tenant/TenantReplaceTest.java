package dev.keypool.tenant;

import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;

import dev.keypool.quota.Priority;
import dev.keypool.testing.MutableClock;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** A reload replaces the tenant set: unchanged tenants stay the same objects, changed ones go on from what was counted. */
class TenantReplaceTest {

    private final MutableClock clock = new MutableClock(Instant.parse("2026-11-30T10:00:00Z"));

    private Tenant tenant(String name, String token, Double budgetDaily) {
        return new Tenant(name, token, Priority.NORMAL, List.of(), List.of(), true,
                new LocalTenantLimits(name, null, 1, null, null, budgetDaily, null, clock));
    }

    @Test
    void should_keep_unchanged_tenants_and_carry_the_budget_spent_into_a_changed_one() {
        Tenant a = tenant("team-a", "token-a", 1.0);
        Tenant b = tenant("team-b", "token-b", null);
        Tenants tenants = new Tenants(List.of(a, b));
        TenantLimits.Admitted admitted = (TenantLimits.Admitted) a.limits().admit(() -> 0);
        a.limits().settle(admitted, OptionalLong.empty(), true, 0.75);
        a.usage().record(false, 10, 20, 0.75);
        Tenant raised = tenant("team-a", "token-a2", 2.0);

        Tenants.Reload done = tenants.replace(List.of("team-a", "team-c"), Map.of("team-a", raised,
                "team-c", tenant("team-c", "token-c", null)));

        assertThat(done.changed()).containsExactly("team-a");
        assertThat(done.added()).containsExactly("team-c");
        assertThat(done.removed()).containsExactly("team-b");
        assertThat(done.summary()).isEqualTo("tenants 1 added, 1 changed, 1 removed");
        assertThat(tenants.authenticate("token-a")).isEmpty();
        assertThat(tenants.authenticate("token-b")).isEmpty();
        assertThat(tenants.authenticate("token-a2")).containsSame(raised);
        assertThat(raised.limits().spentToday()).isEqualTo(0.75);
        assertThat(raised.usage().borrowed().requests()).isEqualTo(1);
        // 0.75 of 2.00 spent: more goes; 1.25 more reaches the new budget
        assertThat(raised.limits().admit(() -> 0)).isInstanceOf(TenantLimits.Admitted.class);
        raised.limits().settle((TenantLimits.Admitted) raised.limits().admit(() -> 0), OptionalLong.empty(), true, 1.25);
        assertThat(raised.limits().admit(() -> 0)).isInstanceOf(TenantLimits.Refused.class);

        Tenants.Reload again = tenants.replace(List.of("team-a", "team-c"), Map.of());
        assertThat(again.kept()).containsExactly("team-a", "team-c");
        assertThat(tenants.named("team-a")).containsSame(raised);
    }
}
