package dev.keypool.pool;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

import dev.keypool.testing.MutableClock;
import org.junit.jupiter.api.Test;

import static dev.keypool.pool.PoolTesting.acquire;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * A 429 without Retry-After cools a key for a random time between the channel's bounds, doubled for a key rate limited
 * again on its first call after cooling (up to 10 minutes), until a success; Retry-After and a fixed cooldown stay as
 * they were.
 */
class KeyPoolCoolingSpreadTest {

    private static final Duration MIN = Duration.ofSeconds(30);
    private static final Duration MAX = Duration.ofSeconds(60);

    private final MutableClock clock = new MutableClock();
    /** The next number the pool draws, in [0, 1). */
    private double draw = 0.5;
    private final ApiKey key = new ApiKey("sk-a", "a", 1);
    private final KeyPool pool = new KeyPool(PoolSettings.builder("chat").cooling(Cooling.spread(MIN, MAX))
            .clock(clock).jitter(() -> draw).build(), List.of(key, new ApiKey("sk-b", "b", 1)));

    @Test
    void should_cool_for_the_drawn_time_between_the_bounds() {
        draw = 0.0;
        assertThat(rateLimited()).isEqualTo(Duration.ofSeconds(30));
        clock.advance(Duration.ofSeconds(30));
        succeeded();

        draw = 0.5;
        assertThat(rateLimited()).isEqualTo(Duration.ofSeconds(45));
        clock.advance(Duration.ofSeconds(45));
        succeeded();

        draw = 0.999;
        assertThat(rateLimited()).isBetween(Duration.ofMillis(59_900), MAX);
    }

    @Test
    void should_double_both_bounds_for_a_429_on_the_first_call_after_cooling_up_to_ten_minutes() {
        draw = 0.0;
        assertThat(rateLimited()).isEqualTo(Duration.ofSeconds(30));
        List<Long> seconds = new java.util.ArrayList<>();
        for (int i = 0; i < 6; i++) {
            clock.advance(pool.coolingUntil(key).map(until -> Duration.between(clock.instant(), until)).orElseThrow());
            seconds.add(rateLimited().toSeconds());
        }

        assertThat(seconds).containsExactly(60L, 120L, 240L, 480L, 600L, 600L);
        draw = 0.999;
        clock.advance(Duration.ofMinutes(10));
        assertThat(rateLimited()).isEqualTo(Duration.ofMinutes(10));   // both bounds at 10 minutes
    }

    @Test
    void should_start_over_after_a_success() {
        draw = 0.0;
        rateLimited();
        clock.advance(Duration.ofSeconds(30));
        assertThat(rateLimited()).isEqualTo(Duration.ofSeconds(60));
        clock.advance(Duration.ofSeconds(60));

        succeeded();

        assertThat(rateLimited()).isEqualTo(Duration.ofSeconds(30));
    }

    @Test
    void should_not_double_for_a_429_of_a_call_sent_while_the_key_was_cooling() {
        draw = 0.0;
        rateLimited();
        clock.advance(Duration.ofSeconds(10));

        rateLimited();   // a call that was in flight before the first 429

        assertThat(pool.coolingUntil(key)).contains(clock.instant().plusSeconds(30));
    }

    @Test
    void should_honour_retry_after_and_leave_the_streak_alone() {
        draw = 0.0;
        rateLimited();
        clock.advance(Duration.ofSeconds(30));

        Instant now = clock.instant();
        pool.outcomes().recordRateLimited(acquire(pool, key), Duration.ZERO, Optional.of(Duration.ofSeconds(7)));

        assertThat(pool.coolingUntil(key)).contains(now.plusSeconds(7));
        clock.advance(Duration.ofSeconds(7));
        assertThat(rateLimited()).isEqualTo(Duration.ofSeconds(60));   // the streak of the first 429 goes on
    }

    @Test
    void should_keep_a_fixed_cooldown_fixed() {
        KeyPool fixed = new KeyPool(PoolSettings.builder("fixed").cooling(Cooling.fixed(Duration.ofSeconds(45))).clock(clock)
                .jitter(() -> draw).build(), List.of(new ApiKey("sk-f", null, 1)));
        ApiKey f = fixed.keys().get(0);
        for (int i = 0; i < 3; i++) {
            draw = i / 3.0;
            Instant now = clock.instant();
            fixed.outcomes().recordRateLimited(acquire(fixed, f), Duration.ZERO, Optional.empty());
            assertThat(fixed.coolingUntil(f)).contains(now.plusSeconds(45));
            clock.advance(Duration.ofSeconds(45));
        }
    }

    /** A 429 without Retry-After on the key now; the time it cools. */
    private Duration rateLimited() {
        Instant now = clock.instant();
        ApiKey leased = pool.stateOf(key) == KeyState.ACTIVE ? acquire(pool, key) : key;
        pool.outcomes().recordRateLimited(leased, Duration.ZERO, Optional.empty());
        return Duration.between(now, pool.coolingUntil(key).orElseThrow());
    }

    private void succeeded() {
        pool.outcomes().recordSuccess(acquire(pool, key), Duration.ZERO, 0, 0);
    }
}
