package dev.keypool.pool;

import java.time.Duration;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;

import dev.keypool.events.StateChange;
import dev.keypool.quota.QuotaLimits;
import dev.keypool.testing.MutableClock;
import org.junit.jupiter.api.Test;

import static dev.keypool.pool.PoolTesting.anyKey;
import static org.assertj.core.api.Assertions.assertThat;

/** Drain (no new calls, those in flight finish) and live weight and limits, by the operator. */
class KeyPoolDrainTest {

    private final MutableClock clock = new MutableClock();
    private final List<StateChange> heard = new CopyOnWriteArrayList<>();
    private final ApiKey one = new ApiKey("sk-one", null, 1);
    private final ApiKey two = new ApiKey("sk-two", null, 1);
    private final KeyPool pool = new KeyPool(PoolSettings.builder("chat")
            .cooling(Cooling.fixed(Duration.ofSeconds(30))).disableAfter(3).clock(clock).listener(heard::add).build(),
            List.of(one, two));

    @Test
    void should_give_a_draining_key_no_new_calls_but_record_those_in_flight() {
        ApiKey inFlight = anyKey(pool, Set.of(two.fingerprint())).orElseThrow();

        pool.controls().drain(one.fingerprint());

        assertThat(inFlight).isSameAs(one);
        for (int i = 0; i < 4; i++) {
            assertThat(anyKey(pool, Set.of())).containsSame(two);
        }
        pool.outcomes().recordSuccess(one, Duration.ofMillis(5), 1, 1);
        assertThat(one.stats().successCount()).isEqualTo(1);
        assertThat(one.inFlight()).isZero();
        assertThat(pool.stateOf(one)).as("drained, not disabled").isEqualTo(KeyState.ACTIVE);
        assertThat(pool.selection().hasUsableKey(KeyScope.SHARED, Set.of(two.fingerprint()))).isFalse();
        assertThat(heard).singleElement().satisfies(change -> {
            assertThat(change.message()).isEqualTo("Key " + one.fingerprint() + "(chat) draining by operator: no new requests, 1 in flight finish");
            assertThat(change.from()).isEqualTo("ACTIVE");
            assertThat(change.to()).isEqualTo("ACTIVE");
        });
    }

    @Test
    void should_end_a_drain_on_enable() {
        pool.controls().drain(one.fingerprint());
        pool.controls().drain(one.fingerprint());   // no second line

        pool.controls().enable(one.fingerprint());

        assertThat(one.draining()).isFalse();
        assertThat(anyKey(pool, Set.of(two.fingerprint()))).containsSame(one);
        assertThat(heard).extracting(StateChange::message).containsExactly(
                "Key " + one.fingerprint() + "(chat) draining by operator: no new requests, 0 in flight finish",
                "Key " + one.fingerprint() + "(chat) enabled by operator, ACTIVE (no longer draining)");
    }

    @Test
    void should_change_weight_and_limits_live_keeping_what_the_window_counted() {
        anyKey(pool, Set.of(two.fingerprint()));
        pool.controls().tune(one.fingerprint(), 1, new QuotaLimits(2L, null, null, null, null));
        anyKey(pool, Set.of(two.fingerprint()));

        pool.controls().tune(one.fingerprint(), 4, new QuotaLimits(3L, null, 100L, null, null));

        assertThat(one.weight()).isEqualTo(4);
        assertThat(pool.quotaOf(one).use()).extracting(u -> u.window().configName() + " " + u.used() + "/" + u.limit())
                .containsExactly("rpm 1/3", "rpd 0/100");
        assertThat(heard).extracting(StateChange::message).containsExactly(
                "Key " + one.fingerprint() + "(chat) changed by operator: rpm none -> 2",
                "Key " + one.fingerprint() + "(chat) changed by operator: weight 1 -> 4, rpm 2 -> 3, rpd none -> 100");
        pool.controls().tune(one.fingerprint(), 4, new QuotaLimits(3L, null, 100L, null, null));
        assertThat(heard).as("no change, no line").hasSize(2);
    }
}
