package dev.keypool.camel;

import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import org.apache.camel.CamelContext;
import org.apache.camel.Consumer;
import org.apache.camel.Service;
import org.apache.camel.ShutdownRoute;
import org.apache.camel.Suspendable;
import org.apache.camel.impl.engine.DefaultShutdownStrategy;
import org.apache.camel.spi.InflightRepository;
import org.apache.camel.spi.RouteStartupOrder;
import org.apache.camel.spi.ShutdownAware;
import org.apache.camel.support.service.ServiceHelper;

/**
 * Camel's graceful stop, without its pauses of a second. Camel's stop (its {@link DefaultShutdownStrategy}, 4.18)
 * first stops or suspends every route's consumer, then counts the exchanges still in flight, and while there are any
 * it looks again after a fixed second, however soon they end: a stop that came while a timer route ran for a few
 * milliseconds (the request log's writer, the capacity tick …), or while a request was being answered, waited that
 * whole second. This strategy takes the consumers out of work as Camel does (suspended where they can be, stopped
 * where they cannot, left running where they must drain: direct and seda), then waits for the exchanges in flight and
 * queued, looking every {@value #LOOK_EVERY_MS} ms, within the same timeout; Camel's own stop, which follows with
 * what is left of it, then finds nothing in flight and goes on at once. A suspension is Camel's.
 */
public final class PromptShutdown extends DefaultShutdownStrategy {

    static final long LOOK_EVERY_MS = 5;

    @Override
    protected boolean doShutdown(CamelContext context, List<RouteStartupOrder> routes, long timeout, TimeUnit timeUnit,
            boolean suspendOnly, boolean abortAfterTimeout, boolean forceShutdown) throws Exception {
        // a context's stop comes as a forced one (Camel forces what is left once the timeout is up): taken here too
        if (suspendOnly || routes.isEmpty() || timeout <= 0) {
            return super.doShutdown(context, routes, timeout, timeUnit, suspendOnly, abortAfterTimeout, forceShutdown);
        }
        long deadline = System.nanoTime() + timeUnit.toNanos(timeout);
        routes.forEach(PromptShutdown::takeNoMore);
        InflightRepository inflight = context.getInflightRepository();
        while (stillWorking(inflight, routes) && System.nanoTime() < deadline && !Thread.currentThread().isInterrupted()) {
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(LOOK_EVERY_MS));
        }
        long left = Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime()));
        return super.doShutdown(context, routes, left, TimeUnit.MILLISECONDS, false, abortAfterTimeout, forceShutdown);
    }

    /** What Camel's stop does to a route's consumer before it waits: the same decision, taken first. */
    private static void takeNoMore(RouteStartupOrder route) {
        Consumer consumer = route.getInput();
        boolean stop = route.getRoute().getShutdownRoute() != ShutdownRoute.Defer;
        if (stop && consumer instanceof ShutdownAware aware) {
            stop = !aware.deferShutdown(route.getRoute().getShutdownRunningTask());
        }
        if (!stop) {
            return;
        }
        if (consumer instanceof Suspendable) {
            ServiceHelper.suspendService(consumer);
        } else {
            ServiceHelper.stopService(consumer);
        }
    }

    /** Exchanges in flight in the routes, or waiting in their queues, as Camel's stop counts them. */
    private static boolean stillWorking(InflightRepository inflight, List<RouteStartupOrder> routes) {
        for (RouteStartupOrder route : routes) {
            if (inflight.size(route.getRoute().getId()) > 0) {
                return true;
            }
            for (Service service : route.getServices()) {
                if (service instanceof ShutdownAware aware && aware.getPendingExchangesSize() > 0) {
                    return true;
                }
            }
        }
        return false;
    }
}
