package dev.keypool.camel.http;

import java.util.ServiceLoader;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import io.vertx.core.impl.VertxInternal;
import io.vertx.core.spi.ExecutorServiceFactory;
import io.vertx.core.spi.VertxServiceProvider;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

class RequestThreadsTest {

    private final String before = System.getProperty(RequestThreads.VIRTUAL_PROPERTY);

    @AfterEach
    void restoreProperty() {
        if (before == null) {
            System.clearProperty(RequestThreads.VIRTUAL_PROPERTY);
        } else {
            System.setProperty(RequestThreads.VIRTUAL_PROPERTY, before);
        }
    }

    @Test
    void should_be_the_vertx_worker_pool() {
        assertThat(ServiceLoader.load(VertxServiceProvider.class).stream()
                .filter(p -> ExecutorServiceFactory.class.isAssignableFrom(p.type()))
                .map(ServiceLoader.Provider::type)).containsExactly(RequestThreads.class);
    }

    @Test
    void should_run_each_request_on_its_own_virtual_thread_on_java_21_plus() throws Exception {
        assumeTrue(Runtime.version().feature() >= 21, "virtual threads need Java 21+");
        System.setProperty(RequestThreads.VIRTUAL_PROPERTY, "true");

        Thread first = workerThreadOf(Vertx.vertx(new VertxOptions().setWorkerPoolSize(1)));

        assertThat((Boolean) Thread.class.getMethod("isVirtual").invoke(first)).isTrue();
        assertThat(first.getName()).startsWith("keypool-request-");
        assertThat(RequestThreads.isVirtual(first)).isTrue();
        assertThat(RequestThreads.isVirtual(Thread.currentThread())).isFalse();
    }

    @Test
    void should_fall_back_to_the_elastic_platform_pool_when_virtual_threads_are_off() throws Exception {
        System.setProperty(RequestThreads.VIRTUAL_PROPERTY, "false");
        Vertx vertx = Vertx.vertx(new VertxOptions().setWorkerPoolSize(8));
        // the thread name alone proves nothing: Vert.x's own default pool names its threads the same way
        ExecutorService workers = ((VertxInternal) vertx).getWorkerPool().executor();

        Thread worker = workerThreadOf(vertx);

        assertThat(workers).isInstanceOfSatisfying(ThreadPoolExecutor.class, pool -> {
            assertThat(pool.getQueue()).isInstanceOf(ElasticWorkerPool.HandOffQueue.class);
            assertThat(pool.getMaximumPoolSize()).isEqualTo(8);
        });
        assertThat(worker.getName()).startsWith("vert.x-worker-thread");
        assertThat(RequestThreads.isVirtual(worker)).isFalse();
    }

    private static Thread workerThreadOf(Vertx vertx) throws Exception {
        try {
            return vertx.executeBlocking(Thread::currentThread, false)
                    .toCompletionStage().toCompletableFuture().get(5, TimeUnit.SECONDS);
        } finally {
            vertx.close().toCompletionStage().toCompletableFuture().get(5, TimeUnit.SECONDS);
        }
    }
}
