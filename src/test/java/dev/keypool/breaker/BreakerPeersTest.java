package dev.keypool.breaker;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import dev.keypool.events.StateListener;
import dev.keypool.testing.MutableClock;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Two instances' breakers of one channel joined by peers that deliver at once, as Redis would within milliseconds:
 * decisions are taken over and not echoed, the half-open probe budget and the probe results are shared.
 */
class BreakerPeersTest {

    private static final Duration LATENCY = Duration.ofMillis(100);

    /** One Redis: the decisions each instance announced, the probes taken and counted per period. */
    private final Map<Long, Integer> taken = new HashMap<>();
    private final Map<Long, int[]> tallies = new HashMap<>();
    private final List<BreakerSnapshot> announced = new ArrayList<>();
    private final MutableClock clock = new MutableClock();
    private final Peers peersOfA = new Peers();
    private final Peers peersOfB = new Peers();
    private final ChannelBreaker a = breaker(peersOfA);
    private final ChannelBreaker b = breaker(peersOfB);

    {
        peersOfA.other = b;
        peersOfB.other = a;
    }

    private final class Peers implements BreakerPeers {
        ChannelBreaker other;

        @Override
        public void announce(BreakerSnapshot decision) {
            announced.add(decision);
            other.follow(decision);
        }

        @Override
        public boolean takeProbe(String channel, long period, int allowed) {
            int before = taken.getOrDefault(period, 0);
            if (before >= allowed) {
                return false;
            }
            taken.put(period, before + 1);
            return true;
        }

        @Override
        public Optional<ProbeTally> recordProbe(String channel, long period, boolean success) {
            int[] tally = tallies.computeIfAbsent(period, p -> new int[2]);
            tally[success ? 0 : 1]++;
            return Optional.of(new ProbeTally(period, tally[0], tally[1]));
        }
    }

    private ChannelBreaker breaker(BreakerPeers peers) {
        return new ChannelBreaker("zhipu", Settings.spec().only(BreakerTrigger.CONSECUTIVE_FAIL).halfOpen(3, 2).build(),
                () -> true, clock, StateListener.NONE, peers);
    }

    private void tripA() {
        a.onKeyFailure("3f2a", 5);
        assertThat(a.state()).isEqualTo(BreakerState.OPEN);
    }

    @Test
    void should_open_the_other_instance_with_the_same_next_try_and_not_echo() {
        tripA();

        assertThat(b.state()).isEqualTo(BreakerState.OPEN);
        assertThat(b.nextAttemptAt()).isEqualTo(a.nextAttemptAt()).contains(clock.instant().plusSeconds(30));
        assertThat(b.admits()).isFalse();
        assertThat(announced).hasSize(1).first().satisfies(d -> assertThat(d.state()).isEqualTo(BreakerState.OPEN));
    }

    @Test
    void should_share_the_half_open_probe_budget_between_instances() {
        tripA();
        clock.advance(Duration.ofSeconds(30));

        assertThat(a.state()).isEqualTo(BreakerState.HALF_OPEN);
        assertThat(b.state()).isEqualTo(BreakerState.HALF_OPEN);
        assertThat(a.snapshot().period()).isEqualTo(b.snapshot().period()).isNotZero();
        List<Boolean> admitted = List.of(a.admits(), b.admits(), a.admits(), b.admits(), a.admits(), b.admits());
        assertThat(admitted).containsExactly(true, true, true, false, false, false);
        // the timed HALF_OPEN is no decision: each instance makes it by itself
        assertThat(announced).hasSize(1);
    }

    @Test
    void should_close_both_on_the_successes_of_both() {
        tripA();
        clock.advance(Duration.ofSeconds(30));
        a.admits();
        b.admits();

        a.onSuccess(LATENCY);
        assertThat(a.state()).isEqualTo(BreakerState.HALF_OPEN);
        // alone, one success of two needed; together with A's it is the second
        b.onSuccess(LATENCY);

        assertThat(b.state()).isEqualTo(BreakerState.CLOSED);
        assertThat(a.state()).isEqualTo(BreakerState.CLOSED);
        assertThat(a.admits()).isTrue();
    }

    @Test
    void should_reopen_both_when_the_probes_of_both_cannot_pass() {
        tripA();
        clock.advance(Duration.ofSeconds(30));
        a.admits();
        b.admits();

        a.onFailure(LATENCY);
        assertThat(a.state()).isEqualTo(BreakerState.HALF_OPEN);
        // two failures of three probes: the two successes needed can no longer come
        b.onFailure(LATENCY);

        assertThat(a.state()).isEqualTo(BreakerState.OPEN);
        assertThat(b.state()).isEqualTo(BreakerState.OPEN);
        assertThat(a.nextAttemptAt()).contains(clock.instant().plusSeconds(60));
        assertThat(b.nextAttemptAt()).isEqualTo(a.nextAttemptAt());
    }

    @Test
    void should_follow_an_operator_hold_and_its_release() {
        a.forceOpen("maintenance");
        assertThat(b.forcedOpen()).isTrue();
        clock.advance(Duration.ofHours(1));
        assertThat(b.state()).isEqualTo(BreakerState.OPEN);

        b.forceClosed();

        assertThat(a.state()).isEqualTo(BreakerState.CLOSED);
        assertThat(a.forcedOpen()).isFalse();
    }

    @Test
    void should_ignore_a_decision_older_than_its_own() {
        tripA();
        BreakerSnapshot open = a.snapshot();
        clock.advance(Duration.ofSeconds(30));
        a.state();
        a.onSuccess(LATENCY);
        a.onSuccess(LATENCY);
        assertThat(b.state()).isEqualTo(BreakerState.CLOSED);

        // the trip arriving late, after the verdict that ended it
        b.follow(open);

        assertThat(b.state()).isEqualTo(BreakerState.CLOSED);
    }

    @Test
    void should_prefer_the_later_decision_then_the_more_cautious_one() {
        Instant at = clock.instant();
        BreakerSnapshot closed = new BreakerSnapshot("zhipu", 5, BreakerState.CLOSED, null, false, null, 0, at);
        BreakerSnapshot open = new BreakerSnapshot("zhipu", 5, BreakerState.OPEN, at.plusSeconds(30), false, "error_rate", 0, at);
        BreakerSnapshot longer = new BreakerSnapshot("zhipu", 5, BreakerState.OPEN, at.plusSeconds(60), false, "error_rate", 0, at);
        BreakerSnapshot laterClosed = new BreakerSnapshot("zhipu", 6, BreakerState.CLOSED, null, false, null, 0, at);

        assertThat(open.newerThan(closed)).isTrue();
        assertThat(closed.newerThan(open)).isFalse();
        assertThat(longer.newerThan(open)).isTrue();
        assertThat(open.newerThan(longer)).isFalse();
        assertThat(laterClosed.newerThan(longer)).isTrue();
        assertThat(BreakerSnapshot.fromFields(longer.toFields())).isEqualTo(longer);
    }

    @Test
    void should_decide_alone_with_local_peers() {
        ChannelBreaker alone = new ChannelBreaker("zhipu", Settings.spec().halfOpen(3, 2).build(), () -> true, clock,
                StateListener.NONE);
        alone.forceHalfOpen();

        // the probe budget is the breaker's own: halfOpenRequests probes, then none until their outcomes decide
        assertThat(List.of(alone.admits(), alone.admits(), alone.admits(), alone.admits()))
                .containsExactly(true, true, true, false);
    }
}
