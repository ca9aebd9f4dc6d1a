package dev.keypool.pool;

import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Optional;
import java.util.Set;

import dev.keypool.events.StateListener;
import dev.keypool.quota.QuotaLimits;
import dev.keypool.testing.MutableClock;
import org.junit.jupiter.api.Test;

import static dev.keypool.pool.PoolTesting.acquire;
import static dev.keypool.pool.PoolTesting.anyKey;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

class KeyPoolAcquireTest {

    private static final Duration NO_TIME = Duration.ZERO;

    private final MutableClock clock = new MutableClock();
    private final Instant start = clock.instant();
    private final ApiKey a = new ApiKey("sk-a", "a", 1);
    private final ApiKey b = new ApiKey("sk-b", "b", 1);
    private final ApiKey c = new ApiKey("sk-c", "c", 1);
    private final KeyPool pool = new KeyPool(PoolSettings.builder("chat")
            .cooling(Cooling.fixed(Duration.ofSeconds(30))).disableAfter(3).clock(clock).build(),
            List.of(a, b, c));

    @Test
    void should_keep_keys_in_configuration_order() {
        assertThat(pool.keys()).containsExactly(a, b, c);
        assertThat(pool.channel()).isEqualTo("chat");
    }

    @Test
    void should_find_key_by_fingerprint() {
        assertThat(pool.find(b.fingerprint())).containsSame(b);
        assertThat(pool.find("0000000000000000")).isEmpty();
    }

    @Test
    void should_never_acquire_excluded_key() {
        Set<String> excluded = Set.of(a.fingerprint(), c.fingerprint());

        for (int i = 0; i < 6; i++) {
            assertThat(anyKey(pool, excluded)).containsSame(b);
        }
    }

    @Test
    void should_never_acquire_cooling_key() {
        cool(a, Duration.ofSeconds(20));

        for (int i = 0; i < 6; i++) {
            assertThat(anyKey(pool, Set.of())).get().isNotSameAs(a);
        }
    }

    @Test
    void should_never_acquire_disabled_key() {
        pool.controls().disable(b.fingerprint());

        for (int i = 0; i < 6; i++) {
            assertThat(anyKey(pool, Set.of())).get().isNotSameAs(b);
        }
    }

    @Test
    void should_acquire_nothing_when_no_key_is_usable() {
        cool(a, Duration.ofSeconds(20));
        pool.controls().disable(b.fingerprint());

        assertThat(anyKey(pool, Set.of(c.fingerprint()))).isEmpty();
    }

    @Test
    void should_give_a_batch_line_no_key_past_the_reserve_line_and_an_interactive_call_the_reserve() {
        ApiKey limitedA = new ApiKey("sk-l-a", null, 1, new QuotaLimits(20L, null, null, null, null));
        ApiKey limitedB = new ApiKey("sk-l-b", null, 1, new QuotaLimits(20L, null, null, null, null));
        KeyPool limited = new KeyPool(PoolSettings.builder("chat")
                .cooling(Cooling.fixed(Duration.ofSeconds(30))).disableAfter(3).clock(clock).build(),
                List.of(limitedA, limitedB));
        int batchLines = 0;
        while (limited.selection().acquireBelowSoftLimit(KeyScope.SHARED, Set.of(), () -> 0, null).isPresent()) {
            batchLines++;
        }

        // 95 % of each key's 20 a minute
        assertThat(batchLines).isEqualTo(38);
        // the next batch line's room: when the minute's first calls have left the window (and their one-second bucket)
        assertThat(limited.capacity().capacityBelowSoftLimitAt(KeyScope.SHARED, 0)).contains(start.plus(Duration.ofSeconds(61)));
        assertThat(limited.capacity().capacityAt(KeyScope.SHARED, 0)).contains(start);
        assertThat(limited.selection().acquire(KeyScope.SHARED, Set.of(), () -> 0, null)).isPresent();
        assertThat(limited.selection().acquire(KeyScope.SHARED, Set.of(), () -> 0, null)).isPresent();
        assertThat(limited.selection().acquire(KeyScope.SHARED, Set.of(), () -> 0, null)).isEmpty();
    }

    @Test
    void should_treat_null_exclusions_as_none() {
        assertThat(anyKey(pool, null)).isPresent();
    }

    @Test
    void should_report_usable_key_without_taking_it() {
        assertThat(pool.selection().hasUsableKey(KeyScope.SHARED, Set.of(a.fingerprint()))).isTrue();
        assertThat(pool.keys()).allSatisfy(key -> assertThat(key.inFlight()).isZero());
    }

    @Test
    void should_report_no_usable_key_when_the_rest_is_excluded() {
        pool.controls().disable(a.fingerprint());

        assertThat(pool.selection().hasUsableKey(KeyScope.SHARED, Set.of(b.fingerprint(), c.fingerprint()))).isFalse();
    }

    @Test
    void should_report_no_active_key_while_all_cool() {
        cool(a, Duration.ofSeconds(20));
        cool(b, Duration.ofSeconds(20));
        cool(c, Duration.ofSeconds(20));

        assertThat(pool.selection().hasActiveKey()).isFalse();
    }

    @Test
    void should_report_active_key_once_one_cooled_down() {
        cool(a, Duration.ofSeconds(20));
        cool(b, Duration.ofSeconds(40));
        pool.controls().disable(c.fingerprint());
        clock.advance(Duration.ofSeconds(20));

        assertThat(pool.selection().hasActiveKey()).isTrue();
    }

    @Test
    void should_give_earliest_cooling_deadline_as_soonest_recovery() {
        cool(a, Duration.ofSeconds(40));
        cool(b, Duration.ofSeconds(15));
        pool.controls().disable(c.fingerprint());

        assertThat(pool.capacity().soonestRecovery(KeyScope.SHARED)).contains(start.plusSeconds(15));
    }

    @Test
    void should_give_no_soonest_recovery_when_nothing_cools() {
        pool.controls().disable(c.fingerprint());

        assertThat(pool.capacity().soonestRecovery(KeyScope.SHARED)).isEmpty();
    }

    @Test
    void should_leave_passed_deadlines_out_of_soonest_recovery() {
        cool(a, Duration.ofSeconds(10));
        cool(b, Duration.ofSeconds(30));
        clock.advance(Duration.ofSeconds(10));

        assertThat(pool.capacity().soonestRecovery(KeyScope.SHARED)).contains(start.plusSeconds(30));
    }

    @Test
    void should_reject_outcome_for_key_of_another_pool() {
        ApiKey stranger = new ApiKey("sk-x", "x", 1);

        assertThat(catchThrowable(() -> pool.outcomes().recordSuccess(stranger, NO_TIME, 0, 0)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(stranger.fingerprint());
    }

    @Test
    void should_reject_the_same_secret_twice() {
        List<ApiKey> twice = List.of(new ApiKey("sk-a", "one", 1), new ApiKey("sk-a", "two", 1));

        assertThat(catchThrowable(() -> new KeyPool(PoolSettings.builder("chat")
                .cooling(Cooling.fixed(NO_TIME)).disableAfter(1).clock(clock).build(),
                twice)))
                .isInstanceOf(IllegalArgumentException.class)
                .message().doesNotContain("sk-a");
    }

    @Test
    void should_reject_disable_after_below_one() {
        assertThat(catchThrowable(() -> new KeyPool(PoolSettings.builder("chat")
                .cooling(Cooling.fixed(NO_TIME)).disableAfter(0).clock(clock).build(),
                List.of())))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void should_acquire_nothing_from_empty_pool() {
        KeyPool empty = new KeyPool(PoolSettings.builder("chat").cooling(Cooling.fixed(NO_TIME)).disableAfter(1).clock(clock).build(),
                List.of());

        assertThat(anyKey(empty, Set.of())).isEmpty();
        assertThat(empty.capacity().soonestRecovery(KeyScope.SHARED)).isEmpty();
    }

    private void cool(ApiKey key, Duration retryAfter) {
        acquire(pool, key);
        pool.outcomes().recordRateLimited(key, NO_TIME, Optional.of(retryAfter));
    }
}
