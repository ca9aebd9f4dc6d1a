package dev.keypool.pool;

import java.time.Duration;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;

import dev.keypool.events.StateListener;
import dev.keypool.quota.QuotaLimits;
import dev.keypool.testing.MutableClock;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** design §7 sub-pools: a tenant's own keys first, then the shared keys if it may borrow, never another tenant's. */
class KeyPoolScopeTest {

    private final MutableClock clock = new MutableClock();
    private final ApiKey ownA1 = new ApiKey("sk-a-1", null, 1, QuotaLimits.NONE, KeyRamp.Plan.NONE, "team-a");
    private final ApiKey ownA2 = new ApiKey("sk-a-2", null, 1, QuotaLimits.NONE, KeyRamp.Plan.NONE, "team-a");
    private final ApiKey shared = new ApiKey("sk-shared", null, 1);
    private final ApiKey ownB = new ApiKey("sk-b-1", null, 1, QuotaLimits.NONE, KeyRamp.Plan.NONE, "team-b");
    private final KeyPool pool = new KeyPool(PoolSettings.builder("chat")
            .cooling(Cooling.fixed(Duration.ofSeconds(30))).disableAfter(3).clock(clock).build(),
            List.of(ownB, shared, ownA1, ownA2));
    private final KeyScope teamA = new KeyScope("team-a", true);

    @Test
    void should_use_only_the_tenants_own_keys_while_they_can_serve() {
        List<ApiKey> used = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
            used.add(pool.selection().acquire(teamA, Set.of(), () -> 0, null).orElseThrow().key());
        }

        assertThat(used).containsOnly(ownA1, ownA2);
    }

    @Test
    void should_borrow_a_shared_key_when_its_own_keys_cannot_serve() {
        pool.outcomes().recordRateLimited(ownA1, Duration.ZERO, Optional.empty());

        assertThat(pool.selection().acquire(teamA, Set.of(ownA2.fingerprint()), () -> 0, null)).map(KeyPool.Lease::key).contains(shared);
        assertThat(pool.selection().hasUsableKey(teamA, Set.of(ownA2.fingerprint()))).isTrue();
    }

    @Test
    void should_not_borrow_when_the_tenant_may_not() {
        KeyScope noBorrowing = new KeyScope("team-a", false);
        pool.outcomes().recordRateLimited(ownA1, Duration.ZERO, Optional.empty());
        pool.outcomes().recordRateLimited(ownA2, Duration.ZERO, Optional.empty());

        assertThat(pool.selection().acquire(noBorrowing, Set.of(), () -> 0, null)).isEmpty();
        assertThat(pool.selection().hasUsableKey(noBorrowing, Set.of())).isFalse();
        assertThat(pool.capacity().soonestRecovery(noBorrowing)).contains(clock.instant().plusSeconds(30));
    }

    @Test
    void should_never_use_another_tenants_keys() {
        pool.outcomes().recordRateLimited(ownA1, Duration.ZERO, Optional.empty());
        pool.outcomes().recordRateLimited(ownA2, Duration.ZERO, Optional.empty());
        pool.outcomes().recordRateLimited(shared, Duration.ZERO, Optional.empty());

        assertThat(pool.selection().acquire(teamA, Set.of(), () -> 0, null)).isEmpty();
        assertThat(pool.capacity().capacityAt(teamA, 0)).contains(clock.instant().plusSeconds(30));
        // a request without a tenant uses the shared keys only
        assertThat(pool.selection().acquire(KeyScope.SHARED, Set.of(), () -> 0, null)).isEmpty();
        assertThat(ownB.inFlight()).isZero();
        // the channel still has a key its breaker can count on
        assertThat(pool.selection().hasActiveKey()).isTrue();
    }

    @Test
    void should_count_only_the_keys_in_scope_when_sizing_the_room_to_come() {
        ApiKey limitedOwn = new ApiKey("sk-l-1", null, 1, new QuotaLimits(5L, null, null, null, null), KeyRamp.Plan.NONE, "team-a");
        ApiKey limitedShared = new ApiKey("sk-l-2", null, 1, new QuotaLimits(7L, null, null, null, null));
        ApiKey limitedOther = new ApiKey("sk-l-3", null, 1, new QuotaLimits(11L, null, null, null, null), KeyRamp.Plan.NONE, "team-b");
        KeyPool limited = new KeyPool(PoolSettings.builder("chat")
                .cooling(Cooling.fixed(Duration.ofSeconds(30))).disableAfter(3).clock(clock).build(),
                List.of(limitedOwn, limitedShared, limitedOther));

        assertThat(limited.capacity().requestRoomBy(teamA, clock.instant().plusSeconds(1))).isEqualTo(12);
        assertThat(limited.capacity().requestRoomBy(new KeyScope("team-a", false), clock.instant().plusSeconds(1))).isEqualTo(5);
        assertThat(limited.capacity().requestRoomBy(KeyScope.SHARED, clock.instant().plusSeconds(1))).isEqualTo(7);
    }
}
