package dev.keypool.gateway;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class InFlightLimitTest {

    @Test
    void should_refuse_past_the_limit_and_admit_again_after_a_leave() {
        InFlightLimit limit = new InFlightLimit(2);

        assertThat(limit.tryEnter()).isTrue();
        assertThat(limit.tryEnter()).isTrue();
        assertThat(limit.tryEnter()).isFalse();
        assertThat(limit.inFlight()).isEqualTo(2);
        assertThat(limit.refused()).isEqualTo(1);

        limit.leave();

        assertThat(limit.tryEnter()).isTrue();
        assertThat(limit.inFlight()).isEqualTo(2);
    }

    @Test
    void should_never_admit_more_than_the_limit_under_contention() throws Exception {
        InFlightLimit limit = new InFlightLimit(100);
        AtomicInteger admitted = new AtomicInteger();
        CountDownLatch start = new CountDownLatch(1);
        List<Thread> threads = new ArrayList<>();
        for (int t = 0; t < 8; t++) {
            threads.add(new Thread(() -> {
                try {
                    start.await();
                } catch (InterruptedException e) {
                    return;
                }
                for (int i = 0; i < 1000; i++) {
                    if (limit.tryEnter()) {
                        admitted.incrementAndGet();
                    }
                }
            }));
        }
        threads.forEach(Thread::start);
        start.countDown();
        for (Thread t : threads) {
            t.join();
        }

        assertThat(admitted.get()).isEqualTo(100);
        assertThat(limit.inFlight()).isEqualTo(100);
        assertThat(limit.refused()).isEqualTo(8 * 1000 - 100);
    }

    @Test
    void should_refuse_past_the_heap_cap_below_the_maximum_and_admit_again_once_it_is_lifted() {
        HeapPressure heap = new HeapPressure(0.9);
        InFlightLimit limit = new InFlightLimit(10, heap);
        for (int i = 0; i < 4; i++) {
            assertThat(limit.tryEnter()).isTrue();
        }

        // a full collection left the old generation 96 % full with 4 in flight: 4 x 0.72 / 0.96 = 3
        heap.afterFullCollection(0.96, limit.inFlight());

        assertThat(limit.current()).isEqualTo(3);
        assertThat(limit.tryEnter()).isFalse();
        limit.leave();
        limit.leave();
        assertThat(limit.tryEnter()).isTrue();
        assertThat(limit.tryEnter()).isFalse();

        heap.afterFullCollection(0.30, limit.inFlight());

        assertThat(limit.current()).isEqualTo(10);
        assertThat(limit.tryEnter()).isTrue();
        assertThat(limit.refused()).isEqualTo(2);
    }

    @Test
    void should_refuse_a_leave_without_an_enter() {
        InFlightLimit limit = new InFlightLimit(1);

        assertThatThrownBy(limit::leave).isInstanceOf(IllegalStateException.class);
        assertThat(limit.inFlight()).isZero();
    }

    @Test
    void should_size_the_default_from_four_fifths_of_the_heap() {
        long heap = 384L * 1024 * 1024;

        assertThat(InFlightLimit.sizedFromHeap(heap))
                .isEqualTo((int) (heap * 4 / 5 / InFlightLimit.HEAP_BYTES_PER_REQUEST))
                .isEqualTo(12582);
        assertThat(InFlightLimit.sizedFromHeap(0)).isEqualTo(1);
    }

    @Test
    void should_hold_ten_thousand_with_the_shipped_heap() {
        // Runtime.maxMemory() under the Dockerfile's -Xmx320m -Xmn32m -XX:+UseParallelGC: the heap less one survivor space
        long shippedMaxMemory = 331_350_016L;

        assertThat(InFlightLimit.sizedFromHeap(shippedMaxMemory)).isEqualTo(10354);
    }
}
