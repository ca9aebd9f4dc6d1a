package dev.keypool.camel.http;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedTransferQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

class ElasticWorkerPoolTest {

    private final ExecutorService executor = new ElasticWorkerPool().createExecutor(Thread::new, 4, 4);

    @Test
    void should_reuse_an_idle_thread_instead_of_starting_a_new_one() throws Exception {
        LinkedTransferQueue<Runnable> queue = (LinkedTransferQueue<Runnable>) ((ThreadPoolExecutor) executor).getQueue();
        for (int i = 0; i < 50; i++) {
            executor.submit(() -> { }).get(5, TimeUnit.SECONDS);
            await().atMost(Duration.ofSeconds(5)).until(queue::hasWaitingConsumer);   // the thread is idle again
        }
        assertThat(((ThreadPoolExecutor) executor).getLargestPoolSize()).isEqualTo(1);
        executor.shutdownNow();
    }

    @Test
    void should_grow_to_the_limit_then_queue_without_rejecting() throws Exception {
        CountDownLatch release = new CountDownLatch(1);
        AtomicInteger done = new AtomicInteger();
        for (int i = 0; i < 10; i++) {
            executor.execute(() -> {
                try {
                    release.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                done.incrementAndGet();
            });
        }
        assertThat(((ThreadPoolExecutor) executor).getPoolSize()).isEqualTo(4);
        assertThat(((ThreadPoolExecutor) executor).getQueue()).hasSize(6);

        release.countDown();
        executor.shutdown();
        assertThat(executor.awaitTermination(5, TimeUnit.SECONDS)).isTrue();
        assertThat(done.get()).isEqualTo(10);
    }
}
