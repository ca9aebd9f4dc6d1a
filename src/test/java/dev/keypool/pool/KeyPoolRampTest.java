package dev.keypool.pool;

import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;

import dev.keypool.events.StateListener;
import dev.keypool.quota.QuotaLimits;
import dev.keypool.testing.LogCapture;
import dev.keypool.testing.MutableClock;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static dev.keypool.pool.PoolTesting.anyKey;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

/** Warm-up, rollout and retiring (design §8): the ramp factor of the effective weight, and the health it shows. */
class KeyPoolRampTest {

    private static final Duration WARMUP = Duration.ofMinutes(3);

    private final MutableClock clock = new MutableClock();
    private final Instant start = clock.instant();
    private final LogCapture logs = LogCapture.attach();

    @AfterEach
    void closeLogs() {
        logs.close();
    }

    @Test
    void should_not_warm_up_keys_present_at_start() {
        ApiKey a = new ApiKey("sk-a", null, 2);
        KeyPool pool = pool(RoundRobinStrategy.NAME, a);

        assertThat(pool.selection().effectiveWeight(a)).isEqualTo(2.0);
        assertThat(pool.healthOf(a)).isEqualTo(KeyHealth.HEALTHY);
        assertThat(pool.warmingUntil(a)).isEmpty();
    }

    @Test
    void should_ramp_a_re_enabled_key_20_50_100_percent_over_the_warmup() {
        ApiKey a = new ApiKey("sk-a", null, 2);
        KeyPool pool = pool(RoundRobinStrategy.NAME, a);
        pool.outcomes().recordRejected(a, Duration.ZERO, 401);

        pool.controls().enable(a.fingerprint());

        assertThat(pool.selection().effectiveWeight(a)).isEqualTo(0.4);
        assertThat(pool.healthOf(a)).isEqualTo(KeyHealth.DEGRADED);
        assertThat(pool.warmingUntil(a)).contains(start.plus(WARMUP));
        clock.advance(Duration.ofSeconds(59));
        assertThat(pool.selection().effectiveWeight(a)).isEqualTo(0.4);
        clock.advance(Duration.ofSeconds(1));
        assertThat(pool.selection().effectiveWeight(a)).isEqualTo(1.0);
        clock.advance(Duration.ofSeconds(60));
        assertThat(pool.selection().effectiveWeight(a)).isEqualTo(2.0);
        assertThat(pool.healthOf(a)).isEqualTo(KeyHealth.DEGRADED);   // the last third of the warm-up
        clock.advance(Duration.ofSeconds(60));
        assertThat(pool.healthOf(a)).isEqualTo(KeyHealth.HEALTHY);
        assertThat(pool.warmingUntil(a)).isEmpty();
        assertThat(logs.lines()).anyMatch(l -> l.contains("Key " + a.fingerprint() + "(chat) enabled by operator, ACTIVE (warming up 3m)"));
    }

    @Test
    void should_warm_up_a_key_added_to_a_running_pool_when_told() {
        ApiKey a = new ApiKey("sk-a", null, 1);
        KeyPool pool = pool(RoundRobinStrategy.NAME, a);

        pool.controls().warmUp(a.fingerprint());

        assertThat(pool.selection().effectiveWeight(a)).isEqualTo(0.2);
        assertThat(pool.warmingUntil(a)).contains(start.plus(WARMUP));
    }

    @Test
    void should_not_warm_up_a_key_enabled_from_cooling() {
        ApiKey a = new ApiKey("sk-a", null, 1);
        KeyPool pool = pool(RoundRobinStrategy.NAME, a);
        pool.outcomes().recordRateLimited(a, Duration.ZERO, Optional.of(Duration.ofSeconds(30)));

        pool.controls().enable(a.fingerprint());

        assertThat(pool.selection().effectiveWeight(a)).isEqualTo(1.0);
    }

    @Test
    void should_bring_a_disabled_key_back_warming_up_on_a_probe_success() {
        ApiKey a = new ApiKey("sk-a", null, 1);
        KeyPool pool = pool(RoundRobinStrategy.NAME, a);
        pool.outcomes().recordRejected(a, Duration.ZERO, 401);

        KeyPool.Lease probe = pool.leases().startProbe(a, 0).orElseThrow();
        pool.outcomes().recordProbeSuccess(a, Duration.ofMillis(5));
        pool.leases().settle(probe, java.util.OptionalLong.empty(), false);

        assertThat(pool.stateOf(a)).isEqualTo(KeyState.ACTIVE);
        assertThat(pool.selection().effectiveWeight(a)).isEqualTo(0.2);
        assertThat(a.inFlight()).isZero();
        assertThat(logs.lines()).anyMatch(l -> l.contains("INFO")
                && l.contains("Key " + a.fingerprint() + "(chat) probe ok, DISABLED -> ACTIVE (warming up 3m)"));
    }

    @Test
    void should_keep_a_key_an_operator_disabled_disabled_on_a_probe_success() {
        ApiKey a = new ApiKey("sk-a", null, 1);
        KeyPool pool = pool(RoundRobinStrategy.NAME, a);
        pool.controls().disable(a.fingerprint());

        pool.leases().startProbe(a, 0).orElseThrow();
        pool.outcomes().recordProbeSuccess(a, Duration.ofMillis(5));

        assertThat(pool.stateOf(a)).isEqualTo(KeyState.DISABLED);
        assertThat(pool.disabledByOperator(a)).isTrue();
        pool.controls().enable(a.fingerprint());
        assertThat(pool.disabledByOperator(a)).isFalse();
    }

    @Test
    void should_count_a_probe_in_the_keys_rpm_and_skip_it_without_room() {
        ApiKey a = new ApiKey("sk-a", null, 1, new QuotaLimits(2L, null, null, null, null));
        KeyPool pool = pool(RoundRobinStrategy.NAME, a);

        assertThat(pool.leases().startProbe(a, 0)).isPresent();
        assertThat(pool.leases().startProbe(a, 0)).isPresent();

        assertThat(pool.leases().startProbe(a, 0)).isEmpty();
        assertThat(anyKey(pool, Set.of())).isEmpty();
    }

    @Test
    void should_roll_out_a_key_from_10_percent_to_its_full_weight() {
        ApiKey fresh = new ApiKey("sk-new", null, 10, QuotaLimits.NONE, new KeyRamp.Plan(Duration.ofHours(24), false), null);
        KeyPool pool = pool(RoundRobinStrategy.NAME, fresh);

        assertThat(pool.selection().effectiveWeight(fresh)).isCloseTo(1.0, within(1e-9));
        assertThat(pool.healthOf(fresh)).isEqualTo(KeyHealth.DEGRADED);
        assertThat(pool.rolloutUntil(fresh)).contains(start.plus(Duration.ofHours(24)));
        clock.advance(Duration.ofHours(12));
        assertThat(pool.selection().effectiveWeight(fresh)).isCloseTo(5.5, within(1e-9));
        clock.advance(Duration.ofHours(12));
        assertThat(pool.selection().effectiveWeight(fresh)).isEqualTo(10.0);
        assertThat(pool.healthOf(fresh)).isEqualTo(KeyHealth.HEALTHY);
    }

    @Test
    void should_keep_a_retiring_key_at_10_percent_and_degraded() {
        ApiKey old = new ApiKey("sk-old", null, 5, QuotaLimits.NONE, new KeyRamp.Plan(null, true), null);
        KeyPool pool = pool(RoundRobinStrategy.NAME, old);

        clock.advance(Duration.ofDays(30));

        assertThat(pool.selection().effectiveWeight(old)).isCloseTo(0.5, within(1e-9));
        assertThat(pool.retiring(old)).isTrue();
        assertThat(pool.healthOf(old)).isEqualTo(KeyHealth.DEGRADED);
    }

    @Test
    void should_show_a_key_failing_over_the_error_rate_threshold_as_degraded() {
        ApiKey a = new ApiKey("sk-a", null, 1);
        KeyPool pool = new KeyPool(PoolSettings.builder("chat")
                .cooling(Cooling.fixed(Duration.ofSeconds(30))).disableAfter(5).clock(clock).degradedErrorRatePercent(40).build(),
                List.of(a));
        for (int i = 0; i < 3; i++) {
            anyKey(pool, Set.of()).orElseThrow();
            pool.outcomes().recordSuccess(a, Duration.ofMillis(1), 0, 0);
        }
        anyKey(pool, Set.of()).orElseThrow();
        pool.outcomes().recordFailure(a, Duration.ofMillis(1), "503");
        assertThat(pool.healthOf(a)).isEqualTo(KeyHealth.HEALTHY);   // 25 %

        anyKey(pool, Set.of()).orElseThrow();
        pool.outcomes().recordFailure(a, Duration.ofMillis(1), "503");
        assertThat(pool.healthOf(a)).isEqualTo(KeyHealth.HEALTHY);   // 40 % is not above 40 %

        anyKey(pool, Set.of()).orElseThrow();
        pool.outcomes().recordFailure(a, Duration.ofMillis(1), "503");

        assertThat(pool.healthOf(a)).isEqualTo(KeyHealth.DEGRADED);  // 50 %
    }

    /** A retiring key of weight 1 next to a key of weight 1 gets 1 of every 11 calls, by every strategy. */
    @Test
    void should_use_the_effective_weight_in_every_strategy() {
        for (String strategy : SelectionStrategy.NAMES) {
            ApiKey old = new ApiKey("sk-old", null, 1, QuotaLimits.NONE, new KeyRamp.Plan(null, true), null);
            ApiKey other = new ApiKey("sk-other", null, 1);
            KeyPool pool = pool(strategy, old, other);
            int calls = strategy.equals(LeastInFlightStrategy.NAME) ? 110 : 11_000;
            List<ApiKey> held = new ArrayList<>();
            int toOld = 0;
            for (int i = 0; i < calls; i++) {
                ApiKey key = anyKey(pool, Set.of()).orElseThrow();
                toOld += key == old ? 1 : 0;
                if (strategy.equals(LeastInFlightStrategy.NAME)) {
                    held.add(key);   // least-in-flight shares by calls in flight: keep them in flight
                } else {
                    pool.outcomes().recordSuccess(key, Duration.ofMillis(10), 0, 0);
                }
            }
            assertThat((double) toOld / calls).as(strategy).isCloseTo(1.0 / 11, within(0.015));
        }
    }

    private KeyPool pool(String strategy, ApiKey... keys) {
        return new KeyPool(PoolSettings.builder("chat")
                .strategy(SelectionStrategy.named(strategy)).cooling(Cooling.fixed(Duration.ofSeconds(30))).disableAfter(3).clock(clock)
                .warmup(WARMUP).degradedErrorRatePercent(50).build(),
                List.of(keys));
    }
}
