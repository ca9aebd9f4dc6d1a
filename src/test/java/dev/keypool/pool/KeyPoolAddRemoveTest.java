package dev.keypool.pool;

import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;

import dev.keypool.events.StateChange;
import dev.keypool.testing.MutableClock;
import org.junit.jupiter.api.Test;

import static dev.keypool.pool.PoolTesting.anyKey;
import static org.assertj.core.api.Assertions.assertThat;

/** A key added to or removed from a running pool by an operator, without a reload of keypool.yaml. */
class KeyPoolAddRemoveTest {

    private final MutableClock clock = new MutableClock();
    private final List<StateChange> heard = new CopyOnWriteArrayList<>();
    private final ApiKey file = new ApiKey("sk-file", null, 1);
    private final KeyPool pool = new KeyPool(PoolSettings.builder("chat").cooling(Cooling.fixed(Duration.ofSeconds(30))).disableAfter(3)
            .clock(clock).listener(heard::add).warmup(Duration.ofMinutes(10)).degradedErrorRatePercent(50).build(), List.of(file));

    @Test
    void should_serve_an_added_key_warming_up_when_it_enters_service() {
        ApiKey added = new ApiKey("sk-added", null, 1);

        assertThat(pool.add(added, true)).isTrue();

        assertThat(pool.find(added.fingerprint())).containsSame(added);
        assertThat(anyKey(pool, Set.of(file.fingerprint()))).containsSame(added);
        assertThat(pool.warmingUntil(added)).contains(clock.instant().plus(Duration.ofMinutes(10)));
        assertThat(heard).extracting(StateChange::message).contains("Key " + added.fingerprint()
                + "(chat) added by operator, ACTIVE (warming up 10m)");
        assertThat(pool.add(new ApiKey("sk-added", null, 1), true)).isFalse();
    }

    @Test
    void should_not_warm_up_a_key_already_in_service() {
        ApiKey added = new ApiKey("sk-added", null, 1);

        pool.add(added, false);

        assertThat(pool.warmingUntil(added)).isEmpty();
        assertThat(pool.selection().effectiveWeight(added)).isEqualTo(1.0);
    }

    @Test
    void should_let_a_removed_key_finish_its_calls_and_take_no_new_ones() {
        ApiKey added = new ApiKey("sk-added", null, 1);
        pool.add(added, false);
        ApiKey inFlight = anyKey(pool, Set.of(file.fingerprint())).orElseThrow();

        assertThat(pool.remove(added.fingerprint())).isTrue();

        assertThat(inFlight).isSameAs(added);
        assertThat(added.draining()).isTrue();
        assertThat(pool.find(added.fingerprint())).isEmpty();
        assertThat(anyKey(pool, Set.of(file.fingerprint()))).isEmpty();
        // its call in flight is still recorded on it
        pool.outcomes().recordSuccess(added, Duration.ofMillis(5), 0, 0);
        assertThat(added.stats().successCount()).isEqualTo(1);
        assertThat(pool.remove(added.fingerprint())).isFalse();
    }
}
