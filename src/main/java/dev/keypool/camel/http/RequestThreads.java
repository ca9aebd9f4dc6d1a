package dev.keypool.camel.http;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.reflect.Method;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadFactory;

import dev.keypool.camel.KeyPoolApplication;
import io.vertx.core.spi.ExecutorServiceFactory;

/**
 * The Vert.x worker pool, where platform-http starts every exchange ({@code executeBlocking}; {@link GatewayHttpEngine}
 * holds it until the provider call goes out): one <b>virtual</b> thread per request on Java 21+,
 * {@link ElasticWorkerPool} (platform threads) on Java 17.
 *
 * <p>An LLM call holds its exchange for seconds while camel-http blocks on the provider's socket; a virtual thread
 * parked there costs a few KB of heap instead of an OS thread and its stack, so 10,000 calls in flight need a
 * handful of carrier threads (docs/architecture.md, "Concurrency model"). The switch is Camel's own
 * {@value #VIRTUAL_PROPERTY} system property, so that Camel's pools and this one always agree;
 * {@link KeyPoolApplication} turns it on by default where the JVM has virtual threads. Registered in
 * META-INF/services as a Vert.x service provider, so every Vert.x instance in the JVM (Camel's included) uses it.
 */
public final class RequestThreads implements ExecutorServiceFactory {

    /** Read once by Camel's {@code ThreadType} as well: virtual threads for Camel's own thread pools. */
    public static final String VIRTUAL_PROPERTY = "camel.threads.virtual.enabled";

    /**
     * {@code Thread::isVirtual} on Java 21+, null before. Looked up once: every request asks it (a client's hang-up is
     * watched on the thread that runs its route), and a reflective lookup per call copied the method each time.
     */
    private static final MethodHandle IS_VIRTUAL = isVirtualHandle();

    @Override
    public ExecutorService createExecutor(ThreadFactory threadFactory, Integer concurrency, Integer maxConcurrency) {
        if (virtualRequested()) {
            ExecutorService virtual = virtualThreadPerTaskExecutor();
            if (virtual != null) {
                // no size and no queue: back-pressure is keypool.max-in-flight, before the request gets here
                return virtual;
            }
        }
        return new ElasticWorkerPool().createExecutor(threadFactory, concurrency, maxConcurrency);
    }

    /** Whether requests run on virtual threads: asked for ({@value #VIRTUAL_PROPERTY}) and there (Java 21+). */
    static boolean virtual() {
        return virtualRequested() && virtualAvailable();
    }

    /**
     * How many requests the worker pool of {@code workerThreads} platform threads can be working on at once: one each,
     * since platform-http holds the worker of a request until its route is done. On virtual threads, no bound.
     */
    public static int requestsHeld(int workerThreads) {
        return virtual() ? Integer.MAX_VALUE : workerThreads;
    }

    static boolean virtualRequested() {
        return Boolean.parseBoolean(System.getProperty(VIRTUAL_PROPERTY, "false"));
    }

    /** Whether this JVM has virtual threads (Java 21+); the jar is compiled for Java 17. */
    public static boolean virtualAvailable() {
        return Runtime.version().feature() >= 21;
    }

    /** {@code thread.isVirtual()}, false before Java 21. */
    static boolean isVirtual(Thread thread) {
        if (IS_VIRTUAL == null) {
            return false;
        }
        try {
            return (boolean) IS_VIRTUAL.invokeExact(thread);
        } catch (Throwable e) {
            throw new IllegalStateException("Thread.isVirtual failed", e);
        }
    }

    private static MethodHandle isVirtualHandle() {
        if (!virtualAvailable()) {
            return null;
        }
        try {
            return MethodHandles.publicLookup().findVirtual(Thread.class, "isVirtual", MethodType.methodType(boolean.class));
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("Java " + Runtime.version().feature() + " without Thread.isVirtual", e);
        }
    }

    /**
     * {@code Executors.newThreadPerTaskExecutor(Thread.ofVirtual().name("keypool-request-", 0).factory())}, by
     * reflection through the public interfaces (the jar targets Java 17); null before Java 21.
     */
    private static ExecutorService virtualThreadPerTaskExecutor() {
        if (!virtualAvailable()) {
            return null;
        }
        try {
            Class<?> builderType = Class.forName("java.lang.Thread$Builder");
            Object builder = Thread.class.getMethod("ofVirtual").invoke(null);
            builder = builderType.getMethod("name", String.class, long.class).invoke(builder, "keypool-request-", 0L);
            ThreadFactory factory = (ThreadFactory) builderType.getMethod("factory").invoke(builder);
            Method perTask = Executors.class.getMethod("newThreadPerTaskExecutor", ThreadFactory.class);
            return (ExecutorService) perTask.invoke(null, factory);
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("virtual threads not usable on Java " + Runtime.version(), e);
        }
    }
}
