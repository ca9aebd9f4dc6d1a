package dev.keypool.camel;

import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadFactory;

import org.apache.camel.spi.ThreadPoolProfile;
import org.apache.camel.support.DefaultThreadPoolFactory;

/**
 * Camel's thread pools, but a scheduled pool keeps one thread that sleeps until its next task is due.
 *
 * <p>With virtual threads Camel 4.18 makes its scheduled pools with no core thread
 * ({@code Executors.newScheduledThreadPool(0, …)}). The JDK's {@link ScheduledThreadPoolExecutor} then keeps a thread
 * that looks at its queue every 10 ms (its keep-alive for a pool without core threads) for as long as a periodic task
 * waits there, i.e. for good: the file inbox's poller, due every 500 ms, woke a virtual thread 100 times a second on an
 * idle gateway, and with it the virtual threads' delay scheduler and a carrier, some 300 wake-ups a second
 * (bench/README.md, "Where a request's time goes"). On platform threads Camel's scheduled pools have their profile's
 * core size already; those are left as they are.
 */
public final class ScheduledPoolsKeepAThread extends DefaultThreadPoolFactory {

    @Override
    public ScheduledExecutorService newScheduledThreadPool(ThreadPoolProfile profile, ThreadFactory threadFactory) {
        ScheduledExecutorService pool = super.newScheduledThreadPool(profile, threadFactory);
        if (pool instanceof ScheduledThreadPoolExecutor executor && executor.getCorePoolSize() == 0) {
            executor.setCorePoolSize(1);
        }
        return pool;
    }
}
