package dev.keypool.quota;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;

import dev.keypool.testing.MutableClock;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

class CapacityQueueTest {

    private final MutableClock clock = new MutableClock(Instant.parse("2026-11-30T10:00:00Z"));
    private final CapacityQueue queue = new CapacityQueue(2, clock);
    private final Instant later = clock.instant().plusSeconds(60);

    @Test
    void should_let_the_first_in_line_go_first() throws Exception {
        AtomicBoolean room = new AtomicBoolean(false);
        List<String> order = new CopyOnWriteArrayList<>();
        CompletableFuture<Void> first = wait("first", room, order);
        await().until(() -> queue.waiting() == 1);
        CompletableFuture<Void> second = wait("second", room, order);
        await().until(() -> queue.waiting() == 2);

        room.set(true);
        queue.wake();

        CompletableFuture.allOf(first, second).get();
        assertThat(order).containsExactly("first", "second");
        assertThat(queue.waiting()).isZero();
    }

    @Test
    void should_refuse_a_waiter_when_the_line_is_full() throws Exception {
        AtomicBoolean room = new AtomicBoolean(false);
        List<String> order = new CopyOnWriteArrayList<>();
        wait("a", room, order);
        wait("b", room, order);
        await().until(() -> queue.waiting() == 2);

        assertThat(queue.await(() -> true, later)).isEqualTo(CapacityQueue.Outcome.FULL);
        room.set(true);
        queue.wake();
        await().until(() -> queue.waiting() == 0);
    }

    @Test
    void should_give_up_at_its_deadline_on_the_gateway_clock() throws Exception {
        CompletableFuture<CapacityQueue.Outcome> waiting = CompletableFuture.supplyAsync(() -> {
            try {
                return queue.await(() -> false, later);
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
        });
        await().until(() -> queue.waiting() == 1);

        clock.advance(Duration.ofSeconds(60));
        queue.wake();

        assertThat(waiting.get()).isEqualTo(CapacityQueue.Outcome.TIMED_OUT);
        assertThat(queue.waiting()).isZero();
    }

    @Test
    void should_leave_the_line_when_interrupted() throws Exception {
        Thread waiter = new Thread(() -> {
            try {
                queue.await(() -> false, later);
            } catch (InterruptedException expected) {
                // the client hung up
            }
        });
        waiter.start();
        await().until(() -> queue.waiting() == 1);

        waiter.interrupt();
        waiter.join();

        assertThat(queue.waiting()).isZero();
    }

    private CompletableFuture<Void> wait(String name, AtomicBoolean room, List<String> order) {
        return CompletableFuture.runAsync(() -> {
            try {
                // the room is taken while first in line, under the line's lock: the order is the line's
                assertThat(queue.await(() -> room.get() && order.add(name), later)).isEqualTo(CapacityQueue.Outcome.ROOM);
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
        }, runnable -> new Thread(runnable).start());
    }
}
