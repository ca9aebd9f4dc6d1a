package dev.keypool.pool;

import java.time.Duration;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Optional;
import java.util.function.BiConsumer;

import dev.keypool.events.StateListener;
import dev.keypool.testing.MutableClock;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import static dev.keypool.pool.PoolTesting.acquire;
import static org.assertj.core.api.Assertions.assertThat;

class KeyPoolCountersTest {

    private final MutableClock clock = new MutableClock();
    private final ApiKey key = new ApiKey("sk-a", "a", 1);
    private final KeyPool pool = new KeyPool(PoolSettings.builder("chat")
            .cooling(Cooling.fixed(Duration.ofSeconds(30))).disableAfter(3).clock(clock).build(),
            List.of(key));

    /** Every way a call can end. */
    enum Outcome {
        SUCCESS((pool, key) -> pool.outcomes().recordSuccess(key, ms(10), 1, 1)),
        RATE_LIMITED((pool, key) -> pool.outcomes().recordRateLimited(key, ms(10), Optional.empty())),
        FAILURE((pool, key) -> pool.outcomes().recordFailure(key, ms(10), "503")),
        REJECTED((pool, key) -> pool.outcomes().recordRejected(key, ms(10), 401)),
        CLIENT_ERROR((pool, key) -> pool.outcomes().recordClientError(key, ms(10)));

        final BiConsumer<KeyPool, ApiKey> record;

        Outcome(BiConsumer<KeyPool, ApiKey> record) {
            this.record = record;
        }
    }

    @Test
    void should_count_success_with_tokens_and_latency() {
        acquire(pool, key);
        pool.outcomes().recordSuccess(key, ms(120), 50, 7);

        KeyStats stats = key.stats();
        assertThat(stats.callCount()).isEqualTo(1);
        assertThat(stats.successCount()).isEqualTo(1);
        assertThat(stats.promptTokens()).isEqualTo(50);
        assertThat(stats.completionTokens()).isEqualTo(7);
        assertThat(stats.totalLatencyMs()).isEqualTo(120);
        assertThat(stats.windowCalls()).isEqualTo(1);
        assertThat(stats.windowFailures()).isZero();
    }

    @Test
    void should_count_429_as_call_and_window_failure() {
        acquire(pool, key);
        pool.outcomes().recordRateLimited(key, ms(5), Optional.empty());

        KeyStats stats = key.stats();
        assertThat(stats.callCount()).isEqualTo(1);
        assertThat(stats.rateLimitCount()).isEqualTo(1);
        assertThat(stats.failureCount()).isZero();
        assertThat(stats.windowCalls()).isEqualTo(1);
        assertThat(stats.windowFailures()).isEqualTo(1);
    }

    @Test
    void should_count_failure_in_totals_streak_and_window() {
        acquire(pool, key);
        pool.outcomes().recordFailure(key, ms(5), "timeout");

        KeyStats stats = key.stats();
        assertThat(stats.callCount()).isEqualTo(1);
        assertThat(stats.failureCount()).isEqualTo(1);
        assertThat(stats.consecutiveFailures()).isEqualTo(1);
        assertThat(stats.windowFailures()).isEqualTo(1);
    }

    @Test
    void should_count_rejection_as_failure() {
        acquire(pool, key);
        pool.outcomes().recordRejected(key, ms(5), 403);

        assertThat(key.stats().failureCount()).isEqualTo(1);
        assertThat(key.stats().windowFailures()).isEqualTo(1);
    }

    @Test
    void should_count_nothing_on_client_error() {
        acquire(pool, key);
        pool.outcomes().recordClientError(key, ms(80));

        assertThat(key.stats()).isEqualTo(new KeyStats(0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0));
        assertThat(pool.stateOf(key)).isEqualTo(KeyState.ACTIVE);
    }

    @Test
    void should_keep_max_and_average_latency() {
        acquire(pool, key);
        pool.outcomes().recordSuccess(key, ms(100), 0, 0);
        acquire(pool, key);
        pool.outcomes().recordSuccess(key, ms(300), 0, 0);

        assertThat(key.stats().maxLatencyMs()).isEqualTo(300);
        assertThat(key.stats().averageLatencyMs()).isEqualTo(200.0);
    }

    @Test
    void should_forget_window_counts_after_60_seconds() {
        acquire(pool, key);
        pool.outcomes().recordFailure(key, ms(5), "503");
        clock.advance(Duration.ofSeconds(61));

        assertThat(key.stats().windowCalls()).isZero();
        assertThat(key.stats().callCount()).isEqualTo(1);
    }

    @Test
    void should_report_recent_latency_over_the_window() {
        acquire(pool, key);
        pool.outcomes().recordSuccess(key, ms(40), 0, 0);

        assertThat(key.recentLatencyMs()).hasValue(40.0);
        clock.advance(Duration.ofSeconds(61));
        assertThat(key.recentLatencyMs()).isEmpty();
    }

    @Test
    void should_count_each_acquire_as_in_flight() {
        acquire(pool, key);
        acquire(pool, key);

        assertThat(key.inFlight()).isEqualTo(2);
        assertThat(key.stats().inFlight()).isEqualTo(2);
    }

    @ParameterizedTest
    @EnumSource(Outcome.class)
    void should_return_in_flight_to_zero_after_each_outcome(Outcome outcome) {
        acquire(pool, key);
        outcome.record.accept(pool, key);

        assertThat(key.inFlight()).isZero();
    }

    @ParameterizedTest
    @EnumSource(Outcome.class)
    void should_release_one_in_flight_per_outcome(Outcome outcome) {
        acquire(pool, key);
        acquire(pool, key);
        outcome.record.accept(pool, key);

        assertThat(key.inFlight()).isEqualTo(1);
    }

    @Test
    void should_not_count_in_flight_below_zero() {
        pool.outcomes().recordSuccess(key, ms(1), 0, 0);

        assertThat(key.inFlight()).isZero();
    }

    private static Duration ms(long millis) {
        return Duration.ofMillis(millis);
    }
}
