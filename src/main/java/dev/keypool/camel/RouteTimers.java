package dev.keypool.camel;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import org.apache.camel.CamelContext;
import org.apache.camel.Exchange;
import org.apache.camel.NamedNode;
import org.apache.camel.NonManagedService;
import org.apache.camel.Route;
import org.apache.camel.component.micrometer.routepolicy.MicrometerRoutePolicyNamingStrategy;
import org.apache.camel.model.RouteDefinition;
import org.apache.camel.spi.RoutePolicy;
import org.apache.camel.spi.RoutePolicyFactory;
import org.apache.camel.support.ExchangeHelper;
import org.apache.camel.support.RoutePolicySupport;

/**
 * Camel's route timers ({@code camel_route_policy_seconds}) and exchange counters ({@code camel_exchanges_*}), the
 * meters camel-micrometer's route policy makes, under its names and tags, for every route but those of the group
 * {@value #UNTIMED_GROUP}. camel-micrometer's own policy formats the name of the exchange property that holds a
 * route's timer with {@code String.format} three times per exchange and route: 2.6 % of the gateway's CPU at 64
 * connections and 7.5 % of the bytes a chat completion allocated, over the two timed routes a request crosses (its entry
 * and its channel; async-profiler's itimer and alloc events, bench/builds.sh). Here each route's property name is made
 * once.
 */
final class RouteTimers implements RoutePolicyFactory {

    /**
     * The route group ({@code group:} in routes/*.camel.yaml) of the routes that get no timer of their own: the hops
     * every request crosses (gateway-core, fallback-walk, upstream-*, …) and the timers and lines of probes, batches
     * and tasks.
     */
    static final String UNTIMED_GROUP = "internal";

    private final MeterRegistry meters;

    RouteTimers(MeterRegistry meters) {
        this.meters = meters;
    }

    @Override
    public RoutePolicy createRoutePolicy(CamelContext camelContext, String routeId, NamedNode route) {
        // Camel adds no policy for a route the factory answers null for
        return route instanceof RouteDefinition definition && UNTIMED_GROUP.equals(definition.getGroup()) ? null
                : new Timed(meters);
    }

    /** One route's meters: made when the route starts (the timer at its first exchange, as Camel's), removed with it. */
    private static final class Timed extends RoutePolicySupport implements NonManagedService {
        private static final MicrometerRoutePolicyNamingStrategy NAMES = MicrometerRoutePolicyNamingStrategy.DEFAULT;

        private final MeterRegistry meters;
        private volatile Route route;
        private String sampleProperty;
        private volatile Timer timer;
        private Counter total;
        private Counter succeeded;
        private Counter failed;
        private Counter failuresHandled;
        private Counter externalRedeliveries;

        Timed(MeterRegistry meters) {
            this.meters = meters;
        }

        @Override
        public void onStart(Route started) {
            if (route != null) {
                return;
            }
            sampleProperty = "CamelRouteTimer-" + started.getId();
            total = counter(started, NAMES.getExchangesTotalName(started), "Total number of processed exchanges");
            succeeded = counter(started, NAMES.getExchangesSucceededName(started), "Number of successfully completed exchanges");
            failed = counter(started, NAMES.getExchangesFailedName(started), "Number of failed exchanges");
            failuresHandled = counter(started, NAMES.getFailuresHandledName(started), "Number of failures handled");
            externalRedeliveries = counter(started, NAMES.getExternalRedeliveriesName(started),
                    "Number of external initiated redeliveries (such as from JMS broker)");
            route = started;
        }

        private Counter counter(Route of, String name, String description) {
            return Counter.builder(name).tags(NAMES.getExchangeStatusTags(of)).description(description).register(meters);
        }

        @Override
        public void onExchangeBegin(Route begun, Exchange exchange) {
            if (route != null) {
                exchange.setProperty(sampleProperty, Timer.start(meters));
            }
        }

        @Override
        public void onExchangeDone(Route done, Exchange exchange) {
            if (route == null) {
                return;
            }
            if (exchange.removeProperty(sampleProperty) instanceof Timer.Sample sample) {
                sample.stop(timer());
            }
            total.increment();
            if (exchange.isFailed()) {
                failed.increment();
                return;
            }
            succeeded.increment();
            if (ExchangeHelper.isFailureHandled(exchange)) {
                failuresHandled.increment();
            }
            if (exchange.isExternalRedelivered()) {
                externalRedeliveries.increment();
            }
        }

        private Timer timer() {
            Timer made = timer;
            if (made == null) {
                made = Timer.builder(NAMES.getName(route)).tags(NAMES.getTags(route)).description("Route performance metrics")
                        .register(meters);
                timer = made;
            }
            return made;
        }

        @Override
        public void onRemove(Route removed) {
            Route had = route;
            route = null;
            if (had == null) {
                return;
            }
            meters.remove(total);
            meters.remove(succeeded);
            meters.remove(failed);
            meters.remove(failuresHandled);
            meters.remove(externalRedeliveries);
            Timer made = timer;
            timer = null;
            if (made != null) {
                meters.remove(made);
            }
        }
    }
}
