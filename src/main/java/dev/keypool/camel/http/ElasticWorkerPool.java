package dev.keypool.camel.http;

import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedTransferQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

import io.vertx.core.spi.ExecutorServiceFactory;

/**
 * Vert.x worker pool that grows with the requests in flight and shrinks when they are gone.
 *
 * <p>Vert.x's default is {@code Executors.newFixedThreadPool(workerPoolSize)}, which starts a new thread for each
 * task until the pool is full, even while others sit idle: after a while of modest traffic a 2,500-thread pool
 * really has 2,500 threads, and their stacks stay in memory. Here a task goes to an idle thread if there is one,
 * else to a new thread up to the limit, else it waits in the queue; idle threads end after {@link #KEEP_ALIVE_SECONDS}.
 * The worker pool on Java 17, or when virtual threads are switched off ({@link RequestThreads}).
 */
public final class ElasticWorkerPool implements ExecutorServiceFactory {

    static final long KEEP_ALIVE_SECONDS = 30;

    @Override
    public ExecutorService createExecutor(ThreadFactory threadFactory, Integer concurrency, Integer maxConcurrency) {
        int max = maxConcurrency != null && maxConcurrency > 0 ? maxConcurrency
                : concurrency != null && concurrency > 0 ? concurrency : Runtime.getRuntime().availableProcessors();
        HandOffQueue queue = new HandOffQueue();
        ThreadPoolExecutor executor = new ThreadPoolExecutor(0, max, KEEP_ALIVE_SECONDS, TimeUnit.SECONDS, queue,
                threadFactory == null ? Thread::new : threadFactory,
                (task, pool) -> {
                    if (pool.isShutdown()) {
                        throw new RejectedExecutionException("worker pool is shut down");
                    }
                    queue.enqueue(task);   // every thread busy and the pool full: wait for one
                });
        return executor;
    }

    /**
     * offer() only hands a task to a thread already waiting for work; refusing otherwise makes the executor
     * start a new thread (below its maximum) instead of queueing behind busy ones.
     */
    static final class HandOffQueue extends LinkedTransferQueue<Runnable> {

        @Override
        public boolean offer(Runnable task) {
            return tryTransfer(task);
        }

        void enqueue(Runnable task) {
            super.offer(task);
        }
    }
}
