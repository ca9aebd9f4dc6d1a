package dev.keypool.pool;

import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;

import dev.keypool.events.StateChange;
import dev.keypool.testing.MutableClock;
import org.junit.jupiter.api.Test;

import static dev.keypool.pool.PoolTesting.anyKey;
import static org.assertj.core.api.Assertions.assertThat;

/** Key states another gateway instance shared (design §11), applied to this instance's pool. */
class KeyPoolSharedStateTest {

    private final MutableClock clock = new MutableClock();
    private final Instant start = clock.instant();
    private final ApiKey key = new ApiKey("sk-a", "a", 1);
    private final ApiKey other = new ApiKey("sk-b", "b", 1);
    private final List<StateChange> heard = new CopyOnWriteArrayList<>();
    private final KeyPool pool = new KeyPool(PoolSettings.builder("chat")
            .cooling(Cooling.fixed(Duration.ofSeconds(30))).disableAfter(3).clock(clock).listener(heard::add).build(),
            List.of(key, other));

    @Test
    void should_cool_until_the_shared_deadline_and_only_ever_extend_it() {
        pool.controls().applyShared(key.fingerprint(), KeyState.COOLING, start.plusSeconds(20), false, false);
        pool.controls().applyShared(key.fingerprint(), KeyState.COOLING, start.plusSeconds(5), false, false);

        assertThat(pool.coolingUntil(key)).contains(start.plusSeconds(20));
        assertThat(anyKey(pool, null)).contains(other);
        assertThat(heard).hasSize(1).first().extracting(StateChange::message).asString()
                .contains("cooling 20s (429 on another instance)");
        // a deadline already past changes nothing
        clock.advance(Duration.ofSeconds(20));
        pool.controls().applyShared(other.fingerprint(), KeyState.COOLING, start.plusSeconds(10), false, false);
        assertThat(pool.stateOf(other)).isEqualTo(KeyState.ACTIVE);
    }

    @Test
    void should_disable_and_enable_as_shared_keeping_an_operators_disable() {
        pool.controls().applyShared(key.fingerprint(), KeyState.DISABLED, null, false, true);
        assertThat(pool.stateOf(key)).isEqualTo(KeyState.DISABLED);
        assertThat(pool.disabledByOperator(key)).isTrue();
        // a probe does not bring back a key an operator disabled, wherever
        pool.outcomes().recordProbeSuccess(key, Duration.ZERO);
        assertThat(pool.stateOf(key)).isEqualTo(KeyState.DISABLED);

        pool.controls().applyShared(key.fingerprint(), KeyState.ACTIVE, null, false, false);

        assertThat(pool.stateOf(key)).isEqualTo(KeyState.ACTIVE);
        assertThat(pool.disabledByOperator(key)).isFalse();
    }

    @Test
    void should_not_end_a_local_cooling_when_another_instance_says_active() {
        pool.outcomes().recordRateLimited(key, Duration.ZERO, Optional.of(Duration.ofSeconds(20)));

        pool.controls().applyShared(key.fingerprint(), KeyState.ACTIVE, null, false, false);

        assertThat(pool.stateOf(key)).isEqualTo(KeyState.COOLING);
    }

    @Test
    void should_drain_as_shared_and_ignore_keys_it_does_not_have() {
        pool.controls().applyShared(key.fingerprint(), KeyState.ACTIVE, null, true, false);
        pool.controls().applyShared("0000000000000000", KeyState.DISABLED, null, false, false);

        assertThat(key.draining()).isTrue();
        assertThat(anyKey(pool, null)).contains(other);
        assertThat(heard).extracting(StateChange::message).singleElement().asString().contains("draining on another instance");

        pool.controls().applyShared(key.fingerprint(), KeyState.ACTIVE, null, false, false);
        assertThat(key.draining()).isFalse();
    }
}
