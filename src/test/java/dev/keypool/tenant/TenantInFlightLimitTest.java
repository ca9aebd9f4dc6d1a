package dev.keypool.tenant;

import java.time.Clock;
import java.util.List;

import dev.keypool.quota.Priority;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class TenantInFlightLimitTest {

    private static Tenant tenant(Integer maxInFlight) {
        return new Tenant("team-a", "token-a", Priority.NORMAL, List.of(), List.of(), true,
                new LocalTenantLimits("team-a", null, 1, null, null, null, null, Clock.systemUTC()), maxInFlight);
    }

    @Test
    void should_take_places_up_to_its_limit_and_give_them_back() {
        Tenant tenant = tenant(2);

        assertThat(tenant.tryEnterInFlight()).isTrue();
        assertThat(tenant.tryEnterInFlight()).isTrue();
        assertThat(tenant.tryEnterInFlight()).isFalse();
        assertThat(tenant.inFlight()).isEqualTo(2);
        assertThat(tenant.maxInFlight()).hasValue(2);

        tenant.leaveInFlight();
        assertThat(tenant.inFlight()).isEqualTo(1);
        assertThat(tenant.tryEnterInFlight()).isTrue();
    }

    @Test
    void should_let_every_request_in_without_a_limit() {
        Tenant tenant = tenant(null);

        for (int i = 0; i < 10_000; i++) {
            assertThat(tenant.tryEnterInFlight()).isTrue();
        }
        tenant.leaveInFlight();
        assertThat(tenant.maxInFlight()).isEmpty();
        assertThat(tenant.inFlight()).isZero();
    }
}
