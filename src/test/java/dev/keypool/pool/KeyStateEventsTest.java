package dev.keypool.pool;

import java.time.Duration;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;

import dev.keypool.events.StateChange;
import dev.keypool.testing.LogCapture;
import dev.keypool.testing.MutableClock;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static dev.keypool.pool.PoolTesting.acquire;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.groups.Tuple.tuple;

/** Every key state change is published once, with the line that was logged for it. */
class KeyStateEventsTest {

    @RegisterExtension
    final LogCapture log = LogCapture.of(KeyPool.class);

    private static final Duration NO_TIME = Duration.ZERO;

    private final MutableClock clock = new MutableClock();
    private final List<StateChange> events = new CopyOnWriteArrayList<>();
    private final ApiKey key = new ApiKey("sk-events-secret", null, 1);
    private final String fp = key.fingerprint();
    private final KeyPool pool = new KeyPool(PoolSettings.builder("chat")
            .cooling(Cooling.fixed(Duration.ofSeconds(30))).disableAfter(2).clock(clock).listener(events::add).build(),
            List.of(key));

    @Test
    void should_publish_each_change_with_its_log_line() {
        acquire(pool, key);
        pool.outcomes().recordRateLimited(key, NO_TIME, Optional.of(Duration.ofSeconds(20)));
        clock.advance(Duration.ofSeconds(20));
        pool.stateOf(key);
        acquire(pool, key);
        pool.outcomes().recordRejected(key, NO_TIME, 401);
        pool.controls().enable(fp);

        assertThat(events).extracting(StateChange::from, StateChange::to).containsExactly(
                tuple("ACTIVE", "COOLING"),
                tuple("COOLING", "ACTIVE"),
                tuple("ACTIVE", "DISABLED"),
                tuple("DISABLED", "ACTIVE"));
        assertThat(events).extracting(StateChange::message)
                .containsExactlyElementsOf(log.lines().stream().map(l -> l.substring(l.indexOf(' ') + 1)).toList());
        assertThat(events).allSatisfy(e -> {
            assertThat(e.channel()).isEqualTo("chat");
            assertThat(e).isInstanceOf(KeyStateChange.class);
            assertThat(((KeyStateChange) e).fingerprint()).isEqualTo(fp);
            assertThat(e.message()).doesNotContain("sk-events-secret");
        });
        assertThat(events.get(0).at()).isEqualTo(events.get(1).at().minusSeconds(20));
    }

    @Test
    void should_publish_nothing_when_nothing_changes() {
        acquire(pool, key);   // a call in flight while the operator disables the key
        pool.controls().disable(fp);
        pool.controls().disable(fp);
        pool.outcomes().recordRejected(key, NO_TIME, 403);

        assertThat(events).singleElement().extracting(StateChange::message)
                .isEqualTo("Key " + fp + "(chat) disabled by operator");
        assertThat(log.lines()).hasSize(1);
    }

    @Test
    void should_publish_a_later_cooling_deadline_but_not_an_earlier_one() {
        acquire(pool, key);
        acquire(pool, key);
        acquire(pool, key);
        pool.outcomes().recordRateLimited(key, NO_TIME, Optional.of(Duration.ofSeconds(20)));
        pool.outcomes().recordRateLimited(key, NO_TIME, Optional.of(Duration.ofSeconds(5)));
        pool.outcomes().recordRateLimited(key, NO_TIME, Optional.of(Duration.ofSeconds(40)));

        assertThat(events).extracting(StateChange::message).containsExactly(
                "Key " + fp + "(chat) cooling 20s after 429",
                "Key " + fp + "(chat) cooling 40s after 429");
    }
}
