package dev.keypool.pool;

import java.time.Duration;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Optional;

import dev.keypool.events.StateListener;
import dev.keypool.testing.MutableClock;
import org.junit.jupiter.api.Test;

import static dev.keypool.pool.PoolTesting.acquire;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

/** → DISABLED on failures in a row, rejected credentials or the operator; back only by the operator. */
class KeyPoolDisableTest {

    private static final int DISABLE_AFTER = 3;
    private static final Duration NO_TIME = Duration.ZERO;

    private final MutableClock clock = new MutableClock();
    private final ApiKey key = new ApiKey("sk-a", "a", 1);
    private final KeyPool pool = new KeyPool(PoolSettings.builder("chat")
            .cooling(Cooling.fixed(Duration.ofSeconds(30))).disableAfter(DISABLE_AFTER).clock(clock).build(),
            List.of(key));

    @Test
    void should_disable_after_disable_after_consecutive_failures() {
        fail(DISABLE_AFTER);

        assertThat(pool.stateOf(key)).isEqualTo(KeyState.DISABLED);
    }

    @Test
    void should_stay_active_one_failure_short_of_disable_after() {
        fail(DISABLE_AFTER - 1);

        assertThat(pool.stateOf(key)).isEqualTo(KeyState.ACTIVE);
    }

    @Test
    void should_reset_failure_streak_on_success() {
        fail(DISABLE_AFTER - 1);
        acquire(pool, key);
        pool.outcomes().recordSuccess(key, NO_TIME, 0, 0);
        fail(DISABLE_AFTER - 1);

        assertThat(pool.stateOf(key)).isEqualTo(KeyState.ACTIVE);
        assertThat(key.stats().consecutiveFailures()).isEqualTo(DISABLE_AFTER - 1);
    }

    @Test
    void should_disable_cooling_key_after_consecutive_failures() {
        acquire(pool, key);
        pool.outcomes().recordRateLimited(key, NO_TIME, Optional.empty());
        for (int i = 0; i < DISABLE_AFTER; i++) {
            pool.outcomes().recordFailure(key, NO_TIME, "timeout");   // calls started before the 429 still come back
        }

        assertThat(pool.stateOf(key)).isEqualTo(KeyState.DISABLED);
    }

    @Test
    void should_disable_at_once_on_401() {
        acquire(pool, key);
        pool.outcomes().recordRejected(key, NO_TIME, 401);

        assertThat(pool.stateOf(key)).isEqualTo(KeyState.DISABLED);
    }

    @Test
    void should_stay_disabled_as_time_passes() {
        acquire(pool, key);
        pool.outcomes().recordRejected(key, NO_TIME, 403);
        clock.advance(Duration.ofDays(1));

        assertThat(pool.stateOf(key)).isEqualTo(KeyState.DISABLED);
    }

    @Test
    void should_stay_disabled_after_late_success() {
        fail(DISABLE_AFTER);
        pool.outcomes().recordSuccess(key, NO_TIME, 0, 0);

        assertThat(pool.stateOf(key)).isEqualTo(KeyState.DISABLED);
    }

    @Test
    void should_enable_disabled_key_with_clean_streak() {
        fail(DISABLE_AFTER);
        pool.controls().enable(key.fingerprint());

        assertThat(pool.stateOf(key)).isEqualTo(KeyState.ACTIVE);
        assertThat(key.stats().consecutiveFailures()).isZero();
    }

    @Test
    void should_end_cooling_when_operator_enables() {
        acquire(pool, key);
        pool.outcomes().recordRateLimited(key, NO_TIME, Optional.of(Duration.ofMinutes(5)));
        pool.controls().enable(key.fingerprint());

        assertThat(pool.stateOf(key)).isEqualTo(KeyState.ACTIVE);
        assertThat(key.storedCoolingUntil()).isEmpty();
    }

    @Test
    void should_disable_by_operator() {
        pool.controls().disable(key.fingerprint());

        assertThat(pool.stateOf(key)).isEqualTo(KeyState.DISABLED);
    }

    @Test
    void should_reject_unknown_fingerprint_from_operator() {
        assertThat(catchThrowable(() -> pool.controls().enable("0000000000000000")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("0000000000000000");
    }

    private void fail(int times) {
        for (int i = 0; i < times; i++) {
            acquire(pool, key);
            pool.outcomes().recordFailure(key, NO_TIME, "503");
        }
    }
}
