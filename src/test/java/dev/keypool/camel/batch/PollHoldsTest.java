package dev.keypool.camel.batch;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** The records of one Kafka poll hold their partition for batch.kafka.maxHold from the poll's first record, no longer. */
class PollHoldsTest {

    private static final Duration MAX_HOLD = Duration.ofSeconds(10);

    private final AtomicLong now = new AtomicLong(1_000);
    private final PollHolds holds = new PollHolds(MAX_HOLD, now::get);
    private final Thread consumer = new Thread(() -> { }, "consumer-1");

    @Test
    void should_give_every_record_of_a_poll_the_deadline_of_its_first() {
        long first = holds.deadline(consumer);
        now.addAndGet(Duration.ofSeconds(4).toNanos());

        assertThat(holds.deadline(consumer)).isEqualTo(first).isEqualTo(1_000 + MAX_HOLD.toNanos());
    }

    @Test
    void should_hold_a_record_until_its_deadline_and_not_at_it() {
        long deadline = holds.deadline(consumer);
        now.set(deadline - 1);
        assertThat(holds.holding(deadline)).isTrue();
        now.set(deadline);
        assertThat(holds.holding(deadline)).isFalse();
    }

    @Test
    void should_start_a_new_hold_with_the_next_poll_once_one_ended() {
        long first = holds.deadline(consumer);
        now.addAndGet(Duration.ofSeconds(4).toNanos());
        holds.ended(consumer);

        assertThat(holds.deadline(consumer)).isEqualTo(first + Duration.ofSeconds(4).toNanos());
    }

    @Test
    void should_keep_each_consumer_threads_poll_apart() {
        Thread other = new Thread(() -> { }, "consumer-2");
        long first = holds.deadline(consumer);
        now.addAndGet(Duration.ofSeconds(4).toNanos());

        assertThat(holds.deadline(other)).isEqualTo(first + Duration.ofSeconds(4).toNanos());
        holds.ended(other);
        assertThat(holds.deadline(consumer)).isEqualTo(first);
    }
}
