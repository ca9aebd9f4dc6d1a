package dev.keypool.pool;

import java.util.List;
import java.util.Set;

import dev.keypool.quota.KeyQuota;
import dev.keypool.quota.QuotaLimits;
import dev.keypool.tenant.RateLimits;
import dev.keypool.tenant.TenantAdmission;
import dev.keypool.tenant.TenantLimits;
import dev.keypool.testing.MutableClock;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * design §11, the tenant's admission with its key: the pool carries a pending admission to the shared count with the
 * key's reservation and never decides it itself (TenantGate does); a lease whose request its tenant then refused is
 * given back whole.
 */
class KeyPoolTenantAdmissionTest {

    private static final RateLimits NO_HEADERS = new RateLimits(null, 0, null, null, 0, null);

    private final MutableClock clock = new MutableClock();
    private final ApiKey unlimited = new ApiKey("sk-free", "free", 1);
    private final ApiKey limited = new ApiKey("sk-limited", "limited", 1, new QuotaLimits(1L, null, null, null, null));
    private final KeyPool pool = new KeyPool(PoolSettings.builder("chat").disableAfter(3).clock(clock).build(),
            List.of(unlimited, limited));
    private int decidedAlone;

    /** An admission pending as one by limits shared through Redis is: decided alone only when asked to. */
    private TenantAdmission pending() {
        return new TenantAdmission(() -> {
            decidedAlone++;
            return new TenantLimits.Admitted(NO_HEADERS, null);
        }) {
        };
    }

    @Test
    void should_lease_a_key_counted_only_here_and_leave_the_admission_to_its_owner() {
        TenantAdmission admission = pending();

        KeyPool.Lease lease = pool.selection().acquire(KeyScope.SHARED, Set.of(limited.fingerprint()), () -> 0, admission)
                .orElseThrow();

        assertThat(lease.key()).isSameAs(unlimited);
        assertThat(admission.decided()).isFalse();
        assertThat(decidedAlone).isZero();
    }

    @Test
    void should_leave_the_admission_undecided_when_the_key_is_limited_only_here() {
        TenantAdmission admission = pending();

        pool.selection().acquire(KeyScope.SHARED, Set.of(unlimited.fingerprint()), () -> 0, admission).orElseThrow();

        assertThat(admission.decided()).isFalse();
        assertThat(decidedAlone).isZero();
    }

    @Test
    void should_give_a_released_lease_back_whole() {
        KeyPool.Lease lease = pool.selection().acquire(KeyScope.SHARED, Set.of(unlimited.fingerprint()), () -> 0, null)
                .orElseThrow();
        assertThat(limited.inFlight()).isEqualTo(1);
        assertThat(pool.quotaOf(limited).used(KeyQuota.Window.RPM)).isEqualTo(1);

        pool.leases().release(lease);

        assertThat(limited.inFlight()).isZero();
        assertThat(pool.quotaOf(limited).used(KeyQuota.Window.RPM)).isZero();
        assertThat(limited.stats().callCount()).isZero();
        assertThat(pool.selection().acquire(KeyScope.SHARED, Set.of(unlimited.fingerprint()), () -> 0, null)).isPresent();
    }
}
