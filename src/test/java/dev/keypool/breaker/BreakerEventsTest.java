package dev.keypool.breaker;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import dev.keypool.events.StateChange;
import dev.keypool.testing.LogCapture;
import dev.keypool.testing.MutableClock;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.groups.Tuple.tuple;

/** Every breaker transition is published once, with its log line, and the r4j gate follows it. */
class BreakerEventsTest {

    @RegisterExtension
    final LogCapture logs = LogCapture.of(ChannelBreaker.class);

    private final MutableClock clock = new MutableClock();
    private final List<StateChange> events = new CopyOnWriteArrayList<>();
    private final ChannelBreaker breaker = new ChannelBreaker("zhipu",
            Settings.spec().only(BreakerTrigger.POOL_EXHAUSTED).halfOpen(1, 1).build(), () -> true, clock, events::add);

    @Test
    void should_publish_trip_half_open_and_close_with_their_log_lines() {
        breaker.onPoolExhausted();
        clock.advance(Duration.ofSeconds(30));
        breaker.state();
        breaker.onSuccess(Duration.ofMillis(10));

        assertThat(events).extracting(StateChange::from, StateChange::to).containsExactly(
                tuple("CLOSED", "OPEN"), tuple("OPEN", "HALF_OPEN"), tuple("HALF_OPEN", "CLOSED"));
        assertThat(events).extracting(StateChange::message).containsExactly(
                "Channel [zhipu] tripped: pool_exhausted (no usable key)",
                "Channel [zhipu] recovery timeout elapsed, HALF_OPEN (needs 1/1)",
                "Channel [zhipu] half-open passed, CLOSED (1/1)");
        // the probe's own line is not a transition: logged, not published
        assertThat(logs.lines()).contains("INFO Channel [zhipu] half-open probe succeeded (1/1 successes, 1/1 probed)");
        assertThat(events).allSatisfy(e -> assertThat(e.channel()).isEqualTo("zhipu"));
    }

    @Test
    void should_publish_a_failed_half_open_and_operator_actions() {
        breaker.onPoolExhausted();
        clock.advance(Duration.ofSeconds(30));
        breaker.state();
        breaker.onPoolExhausted();
        breaker.forceOpen("maintenance");
        breaker.forceOpen("again");
        breaker.forceClosed();
        breaker.forceClosed();

        assertThat(events).extracting(StateChange::from, StateChange::to).containsExactly(
                tuple("CLOSED", "OPEN"), tuple("OPEN", "HALF_OPEN"), tuple("HALF_OPEN", "OPEN"),
                tuple("OPEN", "OPEN"), tuple("OPEN", "CLOSED"));
        assertThat(events.subList(2, 5)).extracting(StateChange::message).containsExactly(
                "Channel [zhipu] half-open failed, OPEN, next try in 60s",
                "Channel [zhipu] forced OPEN by operator: maintenance",
                "Channel [zhipu] forced CLOSED by operator");
        assertThat(events).extracting(e -> ((BreakerStateChange) e).toState())
                .containsExactly(BreakerState.OPEN, BreakerState.HALF_OPEN, BreakerState.OPEN, BreakerState.OPEN,
                        BreakerState.CLOSED);
    }

    @Test
    void should_log_each_transition_exactly_once() {
        breaker.onPoolExhausted();
        breaker.onPoolExhausted();
        breaker.forceClosed();

        assertThat(logs.lines()).containsExactly(
                "WARN Channel [zhipu] tripped: pool_exhausted (no usable key)",
                "INFO Channel [zhipu] forced CLOSED by operator");
        assertThat(events).hasSize(2);
    }
}
