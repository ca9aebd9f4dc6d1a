package dev.keypool.pool;

import dev.keypool.events.StateListener;
import dev.keypool.testing.LogCapture;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Optional;
import java.util.Set;

import dev.keypool.testing.MutableClock;
import org.junit.jupiter.api.RepeatedTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static dev.keypool.pool.PoolTesting.concurrently;
import static dev.keypool.pool.PoolTesting.anyKey;
import static org.assertj.core.api.Assertions.assertThat;

/** Many threads acquiring and recording at once must leave consistent counters and states. */
class KeyPoolConcurrencyTest {

    private static final int THREADS = 8;

    @RegisterExtension
    final LogCapture log = LogCapture.of(KeyPool.class);

    private final MutableClock clock = new MutableClock();
    private final Instant start = clock.instant();
    private final ApiKey a = new ApiKey("sk-a", "a", 1);
    private final ApiKey b = new ApiKey("sk-b", "b", 1);
    private final KeyPool pool = new KeyPool(PoolSettings.builder("chat")
            .cooling(Cooling.fixed(Duration.ofSeconds(30))).disableAfter(3).clock(clock).build(),
            List.of(a, b));

    @RepeatedTest(20)
    void should_keep_longest_deadline_under_concurrent_429s() throws Exception {
        concurrently(THREADS, t -> pool.outcomes().recordRateLimited(a, Duration.ZERO, Optional.of(Duration.ofSeconds(10L + t))));

        assertThat(a.storedCoolingUntil()).contains(start.plusSeconds(10L + THREADS - 1));
    }

    @RepeatedTest(20)
    void should_log_disable_once_under_concurrent_failures() throws Exception {
        concurrently(THREADS, t -> pool.outcomes().recordFailure(a, Duration.ZERO, "503"));

        assertThat(pool.stateOf(a)).isEqualTo(KeyState.DISABLED);
        assertThat(log.lines()).filteredOn(line -> line.startsWith("WARN")).hasSize(1);
    }

    @Test
    void should_balance_counters_under_concurrent_calls() throws Exception {
        int callsPerThread = 1_000;

        concurrently(THREADS, t -> {
            for (int i = 0; i < callsPerThread; i++) {
                ApiKey key = anyKey(pool, Set.of()).orElseThrow();
                pool.outcomes().recordSuccess(key, Duration.ofMillis(2), 1, 1);
            }
        });

        assertThat(a.inFlight() + b.inFlight()).isZero();
        assertThat(a.stats().callCount() + b.stats().callCount()).isEqualTo((long) THREADS * callsPerThread);
        assertThat(a.stats().promptTokens() + b.stats().promptTokens()).isEqualTo((long) THREADS * callsPerThread);
    }
}
