package dev.keypool.breaker;

import dev.keypool.events.StateListener;
import dev.keypool.testing.LogCapture;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import dev.keypool.testing.MutableClock;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;

/** Many request threads reporting at once: every transition happens, and is logged, exactly once. */
class ChannelBreakerConcurrencyTest {

    private static final int THREADS = 8;

    @RegisterExtension
    final LogCapture logs = LogCapture.of(ChannelBreaker.class);

    private final MutableClock clock = new MutableClock();
    private final ExecutorService pool = Executors.newFixedThreadPool(THREADS);

    @AfterEach
    void stopThreads() {
        pool.shutdownNow();
    }

    @Test
    void should_trip_once_when_many_threads_report_failures() throws Exception {
        ChannelBreaker breaker = new ChannelBreaker("zhipu", Settings.spec().build(), () -> true, clock, StateListener.NONE);

        race(() -> {
            for (int i = 0; i < 500; i++) {
                breaker.onFailure(Duration.ofMillis(10));
                breaker.onKeyFailure("3f2a000000000000", i + 1);
            }
        });

        assertThat(breaker.state()).isEqualTo(BreakerState.OPEN);
        assertThat(logs.lines()).hasSize(1).allMatch(line -> line.startsWith("WARN Channel [zhipu] tripped: "));
    }

    @Test
    void should_move_to_half_open_once_when_many_threads_ask_for_the_state() throws Exception {
        ChannelBreaker breaker = new ChannelBreaker("zhipu", Settings.spec().build(), () -> true, clock, StateListener.NONE);
        breaker.onPoolExhausted();
        clock.advance(Duration.ofSeconds(30));
        logs.clear();

        race(() -> {
            for (int i = 0; i < 200; i++) {
                assertThat(breaker.state()).isEqualTo(BreakerState.HALF_OPEN);
            }
        });

        assertThat(logs.lines()).containsExactly("INFO Channel [zhipu] recovery timeout elapsed, HALF_OPEN (needs 2/3)");
    }

    @Test
    void should_close_once_when_probes_succeed_together() throws Exception {
        ChannelBreaker breaker = new ChannelBreaker("zhipu", Settings.spec().build(), () -> true, clock, StateListener.NONE);
        breaker.onPoolExhausted();
        clock.advance(Duration.ofSeconds(30));
        breaker.state();
        logs.clear();

        race(() -> breaker.onSuccess(Duration.ofMillis(10)));

        assertThat(breaker.state()).isEqualTo(BreakerState.CLOSED);
        assertThat(logs.lines()).filteredOn(line -> line.contains("CLOSED")).hasSize(1);
        assertThat(logs.lines()).filteredOn(line -> line.contains("probe succeeded")).hasSize(2);
        assertThat(breaker.figures().callsInWindow()).isEqualTo(THREADS - 2); // the rest landed in CLOSED
    }

    @Test
    void should_reopen_once_when_probes_fail_together() throws Exception {
        ChannelBreaker breaker = new ChannelBreaker("zhipu", Settings.spec().build(), () -> true, clock, StateListener.NONE);
        breaker.onPoolExhausted();
        clock.advance(Duration.ofSeconds(30));
        breaker.state();
        logs.clear();

        race(() -> breaker.onFailure(Duration.ofMillis(10)));

        assertThat(breaker.state()).isEqualTo(BreakerState.OPEN);
        assertThat(logs.lines()).filteredOn(line -> line.startsWith("WARN")).containsExactly(
                "WARN Channel [zhipu] half-open failed, OPEN, next try in 60s");
        assertThat(logs.lines()).filteredOn(line -> line.contains("probe failed")).hasSize(2);
    }

    /** Runs the same work on all threads, released together so they really overlap. */
    private void race(Runnable work) throws Exception {
        CountDownLatch ready = new CountDownLatch(THREADS);
        CountDownLatch go = new CountDownLatch(1);
        List<Future<?>> done = new ArrayList<>();
        for (int t = 0; t < THREADS; t++) {
            done.add(pool.submit(() -> {
                ready.countDown();
                go.await();
                work.run();
                return null;
            }));
        }
        ready.await();
        go.countDown();
        for (Future<?> f : done) {
            f.get(30, TimeUnit.SECONDS); // rethrows a failed assertion from a worker
        }
    }
}
