package dev.keypool.pool;

import java.time.Duration;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;

import dev.keypool.events.StateChange;
import dev.keypool.quota.QuotaLimits;
import dev.keypool.testing.MutableClock;
import org.junit.jupiter.api.Test;

import static dev.keypool.pool.PoolTesting.anyKey;
import static org.assertj.core.api.Assertions.assertThat;

/** A reloaded keypool.yaml applied to a running pool (design §9): what stays keeps its state, what goes drains. */
class KeyPoolReloadTest {

    private final MutableClock clock = new MutableClock();
    private final List<StateChange> heard = new CopyOnWriteArrayList<>();
    private final QuotaLimits rpm10 = new QuotaLimits(10L, null, null, null, null);
    private final ApiKey kept = new ApiKey("sk-kept", "old label", 1, rpm10);
    private final ApiKey leaving = new ApiKey("sk-leaving", null, 1);
    private final KeyPool pool = new KeyPool(PoolSettings.builder("chat")
            .cooling(Cooling.fixed(Duration.ofSeconds(30))).disableAfter(3).clock(clock).listener(heard::add).build(),
            List.of(kept, leaving));

    @Test
    void should_keep_state_counters_and_quota_use_of_a_key_whose_fingerprint_stays() {
        KeyPool.Lease lease = pool.selection().acquire(KeyScope.SHARED, Set.of(leaving.fingerprint()), () -> 0, null).orElseThrow();
        pool.leases().settle(lease, OptionalLong.empty(), false);
        pool.outcomes().recordRateLimited(kept, Duration.ofMillis(3), Optional.of(Duration.ofSeconds(60)));

        KeyPool.Reload reload = pool.reload(List.of(new ApiKey("sk-kept", "new label", 5, rpm10), new ApiKey("sk-new", null, 1)),
                new RoundRobinStrategy(), Duration.ofSeconds(10), 2);

        assertThat(reload.kept()).containsExactly(kept.fingerprint());
        assertThat(reload.added()).containsExactly(Fingerprint.of("sk-new"));
        assertThat(reload.removed()).containsExactly(leaving.fingerprint());
        assertThat(pool.find(kept.fingerprint())).containsSame(kept);
        assertThat(pool.stateOf(kept)).isEqualTo(KeyState.COOLING);
        assertThat(kept.stats().rateLimitCount()).isEqualTo(1);
        assertThat(kept.weight()).isEqualTo(5);
        assertThat(kept.label()).isEqualTo("new label");
        assertThat(pool.quotaOf(kept).use()).singleElement().satisfies(use -> assertThat(use.used()).isEqualTo(1));
        assertThat(pool.keys()).extracting(ApiKey::fingerprint).containsExactly(kept.fingerprint(), Fingerprint.of("sk-new"));
        assertThat(anyKey(pool, Set.of())).map(ApiKey::fingerprint).contains(Fingerprint.of("sk-new"));
    }

    @Test
    void should_let_a_removed_key_finish_its_calls_and_then_forget_it() {
        ApiKey inFlight = anyKey(pool, Set.of(kept.fingerprint())).orElseThrow();

        pool.reload(List.of(new ApiKey("sk-kept", null, 1, rpm10)), new RoundRobinStrategy(), Duration.ofSeconds(30), 3);

        assertThat(inFlight).isSameAs(leaving);
        assertThat(leaving.draining()).isTrue();
        assertThat(pool.find(leaving.fingerprint())).isEmpty();
        // its call in flight is still recorded on it
        pool.outcomes().recordFailure(leaving, Duration.ofMillis(4), "503");
        assertThat(leaving.stats().failureCount()).isEqualTo(1);
        assertThat(heard).extracting(StateChange::message)
                .contains("Key " + leaving.fingerprint() + "(chat) removed by reload, draining: 1 in flight finish");

        // and it comes back with its history when a later file lists it again
        pool.reload(List.of(new ApiKey("sk-kept", null, 1, rpm10), new ApiKey("sk-leaving", null, 1)),
                new RoundRobinStrategy(), Duration.ofSeconds(30), 3);
        assertThat(pool.find(leaving.fingerprint())).containsSame(leaving);
        assertThat(leaving.draining()).isFalse();
    }

    @Test
    void should_keep_a_kept_key_draining_and_send_it_no_new_call() {
        pool.controls().drain(kept.fingerprint());

        pool.reload(List.of(new ApiKey("sk-kept", null, 1, rpm10), leaving), new RoundRobinStrategy(),
                Duration.ofSeconds(30), 3);

        // an operator's drain is not the file's to undo: no call may reach the key while the reload is applied
        assertThat(kept.draining()).isTrue();
        for (int i = 0; i < 4; i++) {
            assertThat(anyKey(pool, Set.of())).containsSame(leaving);
        }
    }

    @Test
    void should_give_a_kept_key_its_new_tenant_and_its_new_retiring_plan() {
        KeyScope teamA = new KeyScope("team-a", false);
        assertThat(pool.selection().acquire(teamA, Set.of(), () -> 0, null)).isEmpty();
        double before = pool.selection().effectiveWeight(kept);

        pool.reload(List.of(new ApiKey("sk-kept", null, 1, rpm10, new KeyRamp.Plan(null, true), "team-a"), leaving),
                new RoundRobinStrategy(), Duration.ofSeconds(30), 3);

        // now team-a's own key: its tenant gets it, a request of no tenant does not
        assertThat(kept.tenant()).isEqualTo("team-a");
        assertThat(pool.selection().acquire(teamA, Set.of(), () -> 0, null)).map(KeyPool.Lease::key).containsSame(kept);
        assertThat(pool.selection().acquire(KeyScope.SHARED, Set.of(), () -> 0, null)).map(KeyPool.Lease::key).containsSame(leaving);
        // and retiring: a tenth of its weight
        assertThat(pool.selection().effectiveWeight(kept)).isEqualTo(before * 0.1, org.assertj.core.data.Offset.offset(1e-9));
    }
}
