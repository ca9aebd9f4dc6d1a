package dev.keypool.testing;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.apache.camel.CamelContext;
import org.apache.camel.component.timer.TimerConsumer;
import org.apache.camel.impl.engine.DefaultShutdownStrategy;
import org.apache.camel.spi.InflightRepository;
import org.apache.camel.spi.RouteStartupOrder;
import org.apache.camel.support.service.ServiceHelper;
import org.awaitility.core.ConditionTimeoutException;

import static org.awaitility.Awaitility.await;

/**
 * Camel's graceful stop, without its pause of a second for a timer route caught mid-run. Camel's stop (its
 * {@link DefaultShutdownStrategy}, 4.18) first stops or suspends every route's consumer, then counts the exchanges
 * still in flight, and while there are any it looks again after a fixed second, however soon they end. A gateway's
 * timer routes (the request log's writer, the quota-state save, the probes' tick, the capacity tick …) each run for
 * milliseconds, but a stop that comes during one of those runs waited that whole second. This strategy first suspends
 * the timer consumers (so that they start no new run) and waits for the runs they already started, looking every
 * millisecond, then stops as Camel does, which then finds those routes with nothing in flight. Other routes' exchanges
 * (a request, a queue's job) are left to Camel's own wait, as in the shipped gateway. Bound by the test fixtures
 * ({@code GatewayTestSupport}, {@link GatewayInstance}, {@link HostContexts}) in place of Camel's.
 */
public final class PromptShutdown extends DefaultShutdownStrategy {

    private static final Duration LOOK_EVERY = Duration.ofMillis(1);

    @Override
    protected boolean doShutdown(CamelContext context, List<RouteStartupOrder> routes, long timeout, TimeUnit timeUnit,
            boolean suspendOnly, boolean abortAfterTimeout, boolean forceShutdown) throws Exception {
        List<String> timerRoutes = new ArrayList<>();
        for (RouteStartupOrder route : routes) {
            if (route.getInput() instanceof TimerConsumer timer) {
                ServiceHelper.suspendService(timer);
                timerRoutes.add(route.getRoute().getRouteId());
            }
        }
        InflightRepository inflight = context.getInflightRepository();
        try {
            await().pollDelay(Duration.ZERO).pollInterval(LOOK_EVERY).atMost(Duration.ofMillis(timeUnit.toMillis(timeout)))
                    .until(() -> timerRoutes.stream().allMatch(route -> inflight.size(route) == 0));
        } catch (ConditionTimeoutException stillRunning) {
            // Camel's own stop below waits for it within the same timeout, and forces it past that
        }
        return super.doShutdown(context, routes, timeout, timeUnit, suspendOnly, abortAfterTimeout, forceShutdown);
    }
}
