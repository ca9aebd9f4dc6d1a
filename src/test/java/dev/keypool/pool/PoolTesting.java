package dev.keypool.pool;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.IntConsumer;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;

/** Small helpers shared by the pool tests. */
final class PoolTesting {

    private PoolTesting() {
    }

    /** Acquires exactly {@code wanted} by excluding every other key of the pool. */
    static ApiKey acquire(KeyPool pool, ApiKey wanted) {
        Set<String> others = pool.keys().stream()
                .filter(key -> key != wanted)
                .map(ApiKey::fingerprint)
                .collect(Collectors.toSet());
        ApiKey acquired = anyKey(pool, others).orElseThrow(() -> new AssertionError(wanted + " not acquirable"));
        assertThat(acquired).isSameAs(wanted);
        return acquired;
    }

    /**
     * A shared key for a call whose tokens do not matter, as the route asks for one ({@link KeyPool#acquire}) for a
     * request without tenant limits.
     */
    static Optional<ApiKey> anyKey(KeyPool pool, Set<String> excludedFingerprints) {
        return pool.selection().acquire(KeyScope.SHARED, excludedFingerprints, () -> 0, null).map(KeyPool.Lease::key);
    }

    /** Runs {@code task(threadIndex)} on {@code threads} threads released at the same moment; rethrows failures. */
    static void concurrently(int threads, IntConsumer task) throws Exception {
        ExecutorService executor = Executors.newFixedThreadPool(threads);
        try {
            CountDownLatch start = new CountDownLatch(1);
            List<Future<?>> running = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                int index = t;
                running.add(executor.submit(() -> {
                    start.await();
                    task.accept(index);
                    return null;
                }));
            }
            start.countDown();
            for (Future<?> future : running) {
                future.get();
            }
        } finally {
            executor.shutdownNow();
        }
    }
}
