package dev.keypool.pool;

import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Optional;
import java.util.Set;

import dev.keypool.events.StateListener;
import dev.keypool.testing.MutableClock;
import org.junit.jupiter.api.Test;

import static dev.keypool.pool.PoolTesting.acquire;
import static dev.keypool.pool.PoolTesting.anyKey;
import static org.assertj.core.api.Assertions.assertThat;

/** ACTIVE → COOLING → ACTIVE, driven by 429s and the clock. */
class KeyPoolCoolingTest {

    private static final Duration COOLDOWN = Duration.ofSeconds(30);
    private static final Duration NO_TIME = Duration.ZERO;

    private final MutableClock clock = new MutableClock();
    private final Instant start = clock.instant();
    private final ApiKey key = new ApiKey("sk-a", "a", 1);
    private final ApiKey other = new ApiKey("sk-b", "b", 1);
    private final KeyPool pool = new KeyPool(PoolSettings.builder("chat")
            .cooling(Cooling.fixed(COOLDOWN)).disableAfter(3).clock(clock).build(),
            List.of(key, other));

    @Test
    void should_cool_key_on_429() {
        rateLimited(Optional.of(Duration.ofSeconds(20)));

        assertThat(pool.stateOf(key)).isEqualTo(KeyState.COOLING);
        assertThat(key.storedCoolingUntil()).contains(start.plusSeconds(20));
    }

    @Test
    void should_still_cool_one_second_before_retry_after_deadline() {
        rateLimited(Optional.of(Duration.ofSeconds(20)));
        clock.advance(Duration.ofSeconds(19));

        assertThat(pool.stateOf(key)).isEqualTo(KeyState.COOLING);
    }

    @Test
    void should_be_active_at_retry_after_deadline() {
        rateLimited(Optional.of(Duration.ofSeconds(20)));
        clock.advance(Duration.ofSeconds(20));

        assertThat(pool.stateOf(key)).isEqualTo(KeyState.ACTIVE);
        assertThat(key.storedState()).isEqualTo(KeyState.ACTIVE);
        assertThat(key.storedCoolingUntil()).isEmpty();
    }

    @Test
    void should_be_acquirable_again_after_cooling() {
        rateLimited(Optional.of(Duration.ofSeconds(20)));
        clock.advance(Duration.ofSeconds(20));

        assertThat(anyKey(pool, Set.of(other.fingerprint()))).containsSame(key);
    }

    @Test
    void should_keep_stored_state_until_pool_checks_the_clock() {
        rateLimited(Optional.of(Duration.ofSeconds(20)));
        clock.advance(Duration.ofSeconds(25));

        assertThat(key.storedState()).isEqualTo(KeyState.COOLING);
    }

    @Test
    void should_cool_for_default_cooldown_without_retry_after() {
        rateLimited(Optional.empty());

        assertThat(key.storedCoolingUntil()).contains(start.plus(COOLDOWN));
    }

    @Test
    void should_keep_longer_deadline_when_later_429_asks_for_less() {
        twoCallsInFlight();
        pool.outcomes().recordRateLimited(key, NO_TIME, Optional.of(Duration.ofSeconds(20)));
        clock.advance(Duration.ofSeconds(5));
        pool.outcomes().recordRateLimited(key, NO_TIME, Optional.of(Duration.ofSeconds(5)));

        assertThat(key.storedCoolingUntil()).contains(start.plusSeconds(20));
    }

    @Test
    void should_extend_deadline_when_later_429_asks_for_more() {
        twoCallsInFlight();
        pool.outcomes().recordRateLimited(key, NO_TIME, Optional.of(Duration.ofSeconds(20)));
        clock.advance(Duration.ofSeconds(5));
        pool.outcomes().recordRateLimited(key, NO_TIME, Optional.of(Duration.ofSeconds(60)));

        assertThat(key.storedCoolingUntil()).contains(start.plusSeconds(65));
    }

    @Test
    void should_leave_consecutive_failures_alone_on_429() {
        acquire(pool, key);
        pool.outcomes().recordFailure(key, NO_TIME, "503");
        rateLimited(Optional.empty());

        assertThat(key.stats().consecutiveFailures()).isEqualTo(1);
    }

    @Test
    void should_keep_disabled_key_disabled_on_429() {
        acquire(pool, key);
        pool.controls().disable(key.fingerprint());
        pool.outcomes().recordRateLimited(key, NO_TIME, Optional.of(Duration.ofSeconds(20)));

        assertThat(pool.stateOf(key)).isEqualTo(KeyState.DISABLED);
        assertThat(key.storedCoolingUntil()).isEmpty();
    }

    @Test
    void should_be_active_at_once_after_zero_retry_after() {
        rateLimited(Optional.of(Duration.ZERO));

        assertThat(pool.stateOf(key)).isEqualTo(KeyState.ACTIVE);
    }

    /** Both calls come back 429: the second one finds the key already cooling. */
    private void twoCallsInFlight() {
        acquire(pool, key);
        acquire(pool, key);
    }

    private void rateLimited(Optional<Duration> retryAfter) {
        acquire(pool, key);
        pool.outcomes().recordRateLimited(key, NO_TIME, retryAfter);
    }
}
