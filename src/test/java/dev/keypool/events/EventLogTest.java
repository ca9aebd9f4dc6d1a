package dev.keypool.events;

import java.time.Instant;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import dev.keypool.pool.KeyState;
import dev.keypool.pool.KeyStateChange;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class EventLogTest {

    private static StateChange change(int n) {
        return new KeyStateChange(Instant.EPOCH, "c", "f", KeyState.ACTIVE, KeyState.COOLING, "change " + n);
    }

    @Test
    void should_keep_the_last_changes_numbered_in_order() {
        EventLog log = new EventLog(3, "a");
        for (int n = 1; n <= 5; n++) {
            log.stateChanged(change(n));
        }

        assertThat(log.since(0)).extracting(EventLog.Entry::id).containsExactly(3L, 4L, 5L);
        assertThat(log.since(4)).singleElement().satisfies(e -> assertThat(e.event().message()).isEqualTo("change 5"));
    }

    @Test
    void should_give_a_subscriber_what_it_missed_then_every_new_change_until_closed() {
        EventLog log = new EventLog(10, "a");
        log.stateChanged(change(1));
        log.stateChanged(change(2));
        List<Long> seen = new CopyOnWriteArrayList<>();

        EventLog.Subscription subscription = log.subscribe(1, entry -> seen.add(entry.id()));
        log.stateChanged(change(3));
        subscription.close();
        log.stateChanged(change(4));

        assertThat(seen).containsExactly(2L, 3L);
    }

    @Test
    void should_hold_the_other_instances_events_and_leave_out_what_it_took_over_from_them() {
        EventLog log = new EventLog(10, "a");
        List<Event> shared = new CopyOnWriteArrayList<>();
        log.shareWith(shared::add);

        log.stateChanged(change(1));
        log.heard(Event.of("b", change(2)));
        RemoteOrigin.run(() -> log.stateChanged(change(2)));

        assertThat(log.since(0)).extracting(e -> e.event().instance() + " " + e.event().message())
                .containsExactly("a change 1", "b change 2");
        assertThat(log.since(0).get(0).event().details()).containsEntry("key", "f");
        assertThat(shared).extracting(Event::message).containsExactly("change 1");
    }
}
