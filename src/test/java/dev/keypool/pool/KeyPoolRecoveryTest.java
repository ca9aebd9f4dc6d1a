package dev.keypool.pool;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import dev.keypool.events.StateChange;
import dev.keypool.testing.MutableClock;
import org.junit.jupiter.api.Test;

import static dev.keypool.pool.PoolTesting.acquire;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Keys heal by themselves (design §8, recovery): probed after 1, 2, 4 … minutes up to maxInterval (a 401/403 at
 * maxInterval only), back degraded at 0.3 of their weight until 20 calls without error or degradedFor; a key failing
 * more than the error rate threshold also at 0.3; every change an event.
 */
class KeyPoolRecoveryTest {

    private static final Duration NO_TIME = Duration.ZERO;

    private final MutableClock clock = new MutableClock();
    private final List<StateChange> events = new CopyOnWriteArrayList<>();
    private final ApiKey key = new ApiKey("sk-a", null, 1);
    private final ApiKey other = new ApiKey("sk-b", null, 1);
    private final KeyPool pool = pool(new Recovery(true, Duration.ofMinutes(1), Duration.ofMinutes(30), Duration.ofMinutes(5)),
            key, other);

    private KeyPool pool(Recovery recovery, ApiKey... keys) {
        return new KeyPool(PoolSettings.builder("chat").disableAfter(3).clock(clock).listener(events::add)
                .degradedErrorRatePercent(50).recovery(recovery).build(), List.of(keys));
    }

    @Test
    void should_probe_a_key_disabled_by_failures_after_1_2_4_minutes_up_to_the_max_interval() {
        disableByFailures();
        Instant disabled = clock.instant();
        assertThat(pool.healing().probeDue(key, 0)).isEqualTo(disabled.plus(Duration.ofMinutes(1)));

        List<Long> waits = new ArrayList<>();
        for (int i = 0; i < 7; i++) {
            Instant due = pool.healing().probeDue(key, 0);
            clock.set(due);
            pool.healing().probeFailed(key, "503");
            waits.add(Duration.between(due, pool.healing().probeDue(key, 0)).toMinutes());
        }

        assertThat(waits).containsExactly(2L, 4L, 8L, 16L, 30L, 30L, 30L);
        assertThat(events).last().extracting(StateChange::message)
                .isEqualTo("Key " + key.fingerprint() + "(chat) recovery probe failed (503), next in 30m");
    }

    @Test
    void should_probe_a_key_disabled_by_401_at_the_max_interval_only() {
        pool.outcomes().recordRejected(acquire(pool, key), NO_TIME, 401);
        assertThat(pool.healing().probeDue(key, 0)).isEqualTo(clock.instant().plus(Duration.ofMinutes(30)));

        clock.advance(Duration.ofMinutes(30));
        pool.healing().probeFailed(key, "401");

        assertThat(pool.healing().probeDue(key, 0)).isEqualTo(clock.instant().plus(Duration.ofMinutes(30)));
    }

    @Test
    void should_probe_a_key_disabled_by_402_as_one_disabled_by_failures() {
        pool.outcomes().recordRejected(acquire(pool, key), NO_TIME, 402);

        assertThat(pool.healing().probeDue(key, 0)).isEqualTo(clock.instant().plus(Duration.ofMinutes(1)));
    }

    @Test
    void should_spread_the_probes_of_keys_disabled_together_by_their_place() {
        disableByFailures();

        assertThat(pool.healing().probeDue(key, 0.5)).isEqualTo(clock.instant().plus(Duration.ofSeconds(75)));
    }

    @Test
    void should_not_probe_a_key_an_operator_disabled_or_when_recovery_is_off() {
        pool.controls().disable(key.fingerprint());
        assertThat(pool.healing().probeDue(key, 0)).isNull();

        ApiKey k = new ApiKey("sk-c", null, 1);
        KeyPool off = pool(Recovery.OFF, k);
        off.outcomes().recordRejected(acquire(off, k), NO_TIME, 402);
        assertThat(off.healing().probeDue(k, 0)).isNull();
    }

    @Test
    void should_bring_a_probed_key_back_at_0_3_of_its_weight_until_20_calls_without_error() {
        disableByFailures();
        clock.advance(Duration.ofMinutes(2));   // its failures leave the 60 s window

        pool.outcomes().recordProbeSuccess(key, NO_TIME);

        assertThat(pool.stateOf(key)).isEqualTo(KeyState.ACTIVE);
        assertThat(pool.selection().effectiveWeight(key)).isEqualTo(0.3);
        assertThat(pool.healthOf(key)).isEqualTo(KeyHealth.DEGRADED);
        for (int i = 0; i < 19; i++) {
            pool.outcomes().recordSuccess(acquire(pool, key), NO_TIME, 0, 0);
        }
        assertThat(pool.selection().effectiveWeight(key)).isEqualTo(0.3);
        pool.outcomes().recordSuccess(acquire(pool, key), NO_TIME, 0, 0);
        assertThat(pool.selection().effectiveWeight(key)).isEqualTo(1.0);
        assertThat(pool.healthOf(key)).isEqualTo(KeyHealth.HEALTHY);
        assertThat(events).extracting(StateChange::message).contains(
                "Key " + key.fingerprint() + "(chat) probe ok, DISABLED -> ACTIVE (degraded: 30 % of its weight for 5m or 20 calls without error)",
                "Key " + key.fingerprint() + "(chat) recovered after 20 calls without error, full weight");
    }

    @Test
    void should_start_the_20_calls_over_after_an_error() {
        disableByFailures();
        clock.advance(Duration.ofMinutes(2));
        pool.outcomes().recordProbeSuccess(key, NO_TIME);
        for (int i = 0; i < 15; i++) {
            pool.outcomes().recordSuccess(acquire(pool, key), NO_TIME, 0, 0);
        }

        pool.outcomes().recordFailure(acquire(pool, key), NO_TIME, "503");
        for (int i = 0; i < 19; i++) {
            pool.outcomes().recordSuccess(acquire(pool, key), NO_TIME, 0, 0);
        }

        assertThat(pool.selection().effectiveWeight(key)).isEqualTo(0.3);
    }

    @Test
    void should_run_a_key_failing_more_than_the_error_rate_threshold_at_0_3_until_it_is_back_under() {
        pool.outcomes().recordSuccess(acquire(pool, key), NO_TIME, 0, 0);
        pool.outcomes().recordFailure(acquire(pool, key), NO_TIME, "503");
        assertThat(pool.selection().effectiveWeight(key)).as("1 of 2: not over 50 %").isEqualTo(1.0);

        pool.outcomes().recordSuccess(acquire(pool, key), NO_TIME, 0, 0);   // the streak of failures ends
        pool.outcomes().recordFailure(acquire(pool, key), NO_TIME, "503");
        pool.outcomes().recordFailure(acquire(pool, key), NO_TIME, "503");
        assertThat(pool.selection().effectiveWeight(key)).as("3 of 5").isEqualTo(0.3);
        assertThat(pool.healthOf(key)).isEqualTo(KeyHealth.DEGRADED);

        clock.advance(Duration.ofSeconds(61));   // the failures leave the window

        assertThat(pool.selection().effectiveWeight(key)).isEqualTo(1.0);
        assertThat(events).extracting(StateChange::message).containsSubsequence(
                "Key " + key.fingerprint() + "(chat) failing more than 50 % of its calls of the last 60s: degraded, 30 % of its weight",
                "Key " + key.fingerprint() + "(chat) no longer failing more than 50 % of its calls of the last 60s");
    }

    @Test
    void should_leave_the_weight_alone_until_the_window_holds_the_minimum_calls() {
        ApiKey k = new ApiKey("sk-m", null, 1);
        KeyPool pool = new KeyPool(PoolSettings.builder("min").disableAfter(10).clock(clock).degradedErrorRatePercent(50)
                .degradedMinimumCalls(4).recovery(new Recovery(true, Duration.ofMinutes(1), Duration.ofMinutes(30),
                        Duration.ofMinutes(5))).build(), List.of(k));
        for (int i = 0; i < 3; i++) {
            pool.outcomes().recordFailure(acquire(pool, k), NO_TIME, "503");
        }
        assertThat(pool.selection().effectiveWeight(k)).as("3 calls").isEqualTo(1.0);

        pool.outcomes().recordFailure(acquire(pool, k), NO_TIME, "503");

        assertThat(pool.selection().effectiveWeight(k)).as("4 calls").isEqualTo(0.3);
    }

    private void disableByFailures() {
        pool.outcomes().recordFailure(acquire(pool, key), NO_TIME, "503");
        pool.outcomes().recordFailure(acquire(pool, key), NO_TIME, "503");
        pool.outcomes().recordFailure(acquire(pool, key), NO_TIME, "503");
        assertThat(pool.stateOf(key)).isEqualTo(KeyState.DISABLED);
    }
}
