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

    @Test
    void should_let_higher_priority_go_first_and_keep_arrival_order_within_a_priority() throws Exception {
        CapacityQueue line = new CapacityQueue(10, clock);
        AtomicBoolean room = new AtomicBoolean(false);
        List<String> order = new CopyOnWriteArrayList<>();
        List<CompletableFuture<Void>> waiters = new java.util.ArrayList<>();
        String[][] arrivals = {{"low-1", "LOW"}, {"normal-1", "NORMAL"}, {"low-2", "LOW"}, {"high-1", "HIGH"},
                {"normal-2", "NORMAL"}, {"high-2", "HIGH"}};
        for (String[] arrival : arrivals) {
            int before = line.waiting();
            waiters.add(waiter(line, Priority.valueOf(arrival[1]), arrival[0], room::get, order));
            await().until(() -> line.waiting() == before + 1);
        }
        assertThat(line.waitingAhead(Priority.HIGH)).isEqualTo(2);
        assertThat(line.waitingAhead(Priority.NORMAL)).isEqualTo(4);
        assertThat(line.waitingAhead(Priority.LOW)).isEqualTo(6);

        room.set(true);
        line.wake();

        CompletableFuture.allOf(waiters.toArray(CompletableFuture[]::new)).get();
        assertThat(order).containsExactly("high-1", "high-2", "normal-1", "normal-2", "low-1", "low-2");
    }

    @Test
    void should_let_a_high_priority_newcomer_overtake_a_steady_stream_of_low_priority_waiters() throws Exception {
        CapacityQueue line = new CapacityQueue(100, clock);
        java.util.concurrent.atomic.AtomicInteger tickets = new java.util.concurrent.atomic.AtomicInteger();
        List<String> order = new CopyOnWriteArrayList<>();
        // one departure per ticket: room comes one request at a time
        java.util.function.BooleanSupplier oneAtATime = () -> tickets.getAndUpdate(t -> t > 0 ? t - 1 : 0) > 0;
        List<CompletableFuture<Void>> waiters = new java.util.ArrayList<>();
        for (int i = 0; i < 5; i++) {
            waiters.add(waiter(line, Priority.LOW, "low-" + i, oneAtATime, order));
            int expected = i + 1;
            await().until(() -> line.waiting() == expected);
        }
        tickets.set(1);
        line.wake();
        await().until(() -> order.size() == 1);
        waiters.add(waiter(line, Priority.HIGH, "high", oneAtATime, order));
        await().until(() -> line.waiting() == 5);
        for (int i = 5; i < 8; i++) {
            waiters.add(waiter(line, Priority.LOW, "low-" + i, oneAtATime, order));
            int expected = i + 1;
            await().until(() -> line.waiting() == expected);
        }

        tickets.set(1);
        line.wake();
        await().until(() -> order.size() == 2);

        assertThat(order).containsExactly("low-0", "high");
        tickets.set(100);
        line.wake();
        CompletableFuture.allOf(waiters.toArray(CompletableFuture[]::new)).get();
    }

    @Test
    void should_hold_the_next_in_line_until_the_one_dispatched_has_taken_its_room() throws Exception {
        CapacityQueue line = new CapacityQueue(10, clock);
        List<String> order = new CopyOnWriteArrayList<>();
        // room stays visible: without the hold, the second would leave while the first has not taken it yet
        CompletableFuture<CapacityQueue.Outcome> first = CompletableFuture.supplyAsync(() -> {
            try {
                CapacityQueue.Outcome outcome = line.await("first", Priority.NORMAL, () -> order.add("first"), later);
                return outcome;
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
        }, runnable -> new Thread(runnable).start());
        assertThat(first.get()).isEqualTo(CapacityQueue.Outcome.ROOM);
        CompletableFuture<Void> second = waiter(line, Priority.HIGH, "second", () -> true, order);
        await().until(() -> line.waiting() == 1);

        assertThat(order).containsExactly("first");
        line.dispatched("first");
        second.get();
        assertThat(order).containsExactly("first", "second");
    }

    private CompletableFuture<Void> waiter(CapacityQueue line, Priority priority, String name,
                                           java.util.function.BooleanSupplier room, List<String> order) {
        // a thread each: the common pool may have a single one on a small machine. The departure is written down
        // while the line still holds its lock (only the first in line is asked), so the order is the line's
        return CompletableFuture.runAsync(() -> {
            try {
                line.await(name, priority, () -> {
                    if (room.getAsBoolean()) {
                        order.add(name);
                        return true;
                    }
                    return false;
                }, later);
                line.dispatched(name);
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
        }, runnable -> new Thread(runnable).start());
    }
}
