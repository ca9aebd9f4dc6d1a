package dev.keypool.breaker;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;

import dev.keypool.events.StateListener;
import dev.keypool.testing.LogCapture;
import dev.keypool.testing.MutableClock;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;

/** Every breaker log line word for word (design §5), captured from the real log4j2 logger. */
class ChannelBreakerLogTest {

    @RegisterExtension
    final LogCapture logs = LogCapture.of(ChannelBreaker.class);

    private final MutableClock clock = new MutableClock();
    private final AtomicBoolean activeKey = new AtomicBoolean(true);

    private ChannelBreaker breaker(Settings settings) {
        return new ChannelBreaker("zhipu", settings.build(), activeKey::get, clock, StateListener.NONE);
    }

    @Test
    void should_log_an_error_rate_trip_with_one_decimal_and_the_threshold_as_written() {
        ChannelBreaker breaker = breaker(Settings.spec().only(BreakerTrigger.ERROR_RATE).minimumCalls(20));
        // judged first at the 20th call: 9 of 20 failed
        for (int i = 0; i < 11; i++) {
            breaker.onSuccess(Duration.ofMillis(100));
        }
        for (int i = 0; i < 9; i++) {
            breaker.onFailure(Duration.ofMillis(100));
        }

        assertThat(logs.lines()).containsExactly("WARN Channel [zhipu] tripped: error_rate (45.0% >= 30%)");
    }

    @Test
    void should_log_a_fractional_error_rate_threshold_as_written() {
        ChannelBreaker breaker = breaker(Settings.spec().only(BreakerTrigger.ERROR_RATE).errorRateThreshold(12.5));
        for (int i = 0; i < 10; i++) {
            breaker.onSuccess(Duration.ofMillis(100));
        }
        breaker.onFailure(Duration.ofMillis(100));
        breaker.onFailure(Duration.ofMillis(100)); // 2 of 12 = 16.666..%

        assertThat(logs.lines()).containsExactly("WARN Channel [zhipu] tripped: error_rate (16.7% >= 12.5%)");
    }

    @Test
    void should_log_a_latency_trip() {
        ChannelBreaker breaker = breaker(Settings.spec().only(BreakerTrigger.LATENCY));
        for (int i = 0; i < 10; i++) {
            breaker.onSuccess(Duration.ofMillis(16_000));
        }

        assertThat(logs.lines()).containsExactly("WARN Channel [zhipu] tripped: latency (16000ms > 15000ms)");
    }

    @Test
    void should_log_a_consecutive_fail_trip() {
        breaker(Settings.spec()).onKeyFailure("3f2a000000000000", 5);

        assertThat(logs.lines()).containsExactly("WARN Channel [zhipu] tripped: consecutive_fail (5 >= 5)");
    }

    @Test
    void should_log_a_pool_exhausted_trip() {
        breaker(Settings.spec()).onPoolExhausted();

        assertThat(logs.lines()).containsExactly("WARN Channel [zhipu] tripped: pool_exhausted (no usable key)");
    }

    @Test
    void should_log_the_move_to_half_open() {
        ChannelBreaker breaker = breaker(Settings.spec());
        breaker.onPoolExhausted();
        logs.clear();
        clock.advance(Duration.ofSeconds(30));

        breaker.state();
        breaker.state();

        assertThat(logs.lines()).containsExactly("INFO Channel [zhipu] recovery timeout elapsed, HALF_OPEN (needs 2/3)");
    }

    @Test
    void should_log_a_recovery_without_active_key_once_per_attempt() {
        ChannelBreaker breaker = breaker(Settings.spec());
        breaker.onPoolExhausted();
        logs.clear();
        activeKey.set(false);
        clock.advance(Duration.ofSeconds(30));

        breaker.state();
        breaker.state();
        clock.advance(Duration.ofSeconds(60));
        breaker.state();

        assertThat(logs.lines()).containsExactly(
                "INFO Channel [zhipu] recovery timeout elapsed but no ACTIVE key, OPEN, next try in 60s",
                "INFO Channel [zhipu] recovery timeout elapsed but no ACTIVE key, OPEN, next try in 60s");
    }

    @Test
    void should_log_probes_and_the_close() {
        ChannelBreaker breaker = halfOpen();

        breaker.onFailure(Duration.ofMillis(100));
        breaker.onSuccess(Duration.ofMillis(100));
        breaker.onSuccess(Duration.ofMillis(100));

        assertThat(logs.lines()).containsExactly(
                "INFO Channel [zhipu] half-open probe failed (0/2 successes, 1/3 probed)",
                "INFO Channel [zhipu] half-open probe succeeded (1/2 successes, 2/3 probed)",
                "INFO Channel [zhipu] half-open probe succeeded (2/2 successes, 3/3 probed)",
                "INFO Channel [zhipu] half-open passed, CLOSED (2/3)");
    }

    @Test
    void should_log_probes_and_the_reopen() {
        ChannelBreaker breaker = halfOpen();

        breaker.onSuccess(Duration.ofMillis(100));
        breaker.onFailure(Duration.ofMillis(100));
        breaker.onPoolExhausted();

        assertThat(logs.lines()).containsExactly(
                "INFO Channel [zhipu] half-open probe succeeded (1/2 successes, 1/3 probed)",
                "INFO Channel [zhipu] half-open probe failed (1/2 successes, 2/3 probed)",
                "INFO Channel [zhipu] half-open probe failed (1/2 successes, 3/3 probed)",
                "WARN Channel [zhipu] half-open failed, OPEN, next try in 60s");
    }

    @Test
    void should_log_nothing_for_outcomes_ignored_while_open() {
        ChannelBreaker breaker = breaker(Settings.spec());
        breaker.onPoolExhausted();
        logs.clear();

        breaker.onPoolExhausted();
        breaker.onFailure(Duration.ofMillis(100));
        breaker.onKeyFailure("3f2a000000000000", 9);

        assertThat(logs.lines()).isEmpty();
    }

    @Test
    void should_log_operator_actions_once() {
        ChannelBreaker breaker = breaker(Settings.spec());

        breaker.forceOpen("maintenance");
        breaker.forceOpen("still maintenance");
        breaker.forceClosed();
        breaker.forceClosed();

        assertThat(logs.lines()).containsExactly(
                "WARN Channel [zhipu] forced OPEN by operator: maintenance",
                "INFO Channel [zhipu] forced CLOSED by operator");
    }

    private ChannelBreaker halfOpen() {
        ChannelBreaker breaker = breaker(Settings.spec());
        breaker.onPoolExhausted();
        clock.advance(Duration.ofSeconds(30));
        breaker.state();
        logs.clear();
        return breaker;
    }
}
