package dev.keypool.camel;

import java.util.List;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Collectors;

import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.apache.camel.CamelContext;
import org.apache.camel.ProducerTemplate;
import org.apache.camel.builder.RouteBuilder;
import org.apache.camel.component.micrometer.MicrometerConstants;
import org.apache.camel.component.micrometer.routepolicy.MicrometerRoutePolicy;
import org.apache.camel.impl.DefaultCamelContext;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Camel's route timers and exchange counters as {@link RouteTimers} makes them: the meters camel-micrometer's own
 * route policy makes, under the same names and tags, for every route but the internal group's.
 */
class RouteTimersTest {

    private final MeterRegistry meters = new SimpleMeterRegistry();
    private CamelContext context;
    private ProducerTemplate producer;

    @BeforeEach
    void start() throws Exception {
        context = new DefaultCamelContext();
        context.getCamelContextExtension().setName("timers");
        context.getRegistry().bind(MicrometerConstants.METRICS_REGISTRY_NAME, meters);
        context.addRoutePolicyFactory(new RouteTimers(meters));
        // a lambda, not a RouteBuilder subclass: Camel Main in the other tests scans this package for those
        RouteBuilder.addRoutes(context, routes -> {
            routes.from("direct:entry").routeId("entry").to("direct:inside");
            routes.from("direct:inside").routeId("inside").group(RouteTimers.UNTIMED_GROUP).setBody(routes.constant("done"));
            routes.from("direct:failing").routeId("failing").throwException(new IllegalStateException("failed"));
            // camel-micrometer's own policy, on a route of the internal group so that RouteTimers leaves it alone
            routes.from("direct:camels").routeId("camels").group(RouteTimers.UNTIMED_GROUP)
                    .routePolicy(new MicrometerRoutePolicy()).setBody(routes.constant("done"));
        });
        context.start();
        producer = context.createProducerTemplate();
    }

    @AfterEach
    void stop() {
        context.stop();
    }

    @Test
    void should_time_each_exchange_of_a_route_and_count_it() {
        producer.sendBody("direct:entry", "request");
        producer.sendBody("direct:entry", "request");

        assertThat(meters.find(MicrometerConstants.DEFAULT_CAMEL_ROUTE_POLICY_METER_NAME).tag("routeId", "entry").timer().count())
                .isEqualTo(2);
        assertThat(meters.find(MicrometerConstants.DEFAULT_CAMEL_ROUTE_POLICY_EXCHANGES_SUCCEEDED_METER_NAME)
                .tag("routeId", "entry").counter().count()).isEqualTo(2);
        assertThat(meters.find(MicrometerConstants.DEFAULT_CAMEL_ROUTE_POLICY_EXCHANGES_TOTAL_METER_NAME)
                .tag("routeId", "entry").counter().count()).isEqualTo(2);
    }

    @Test
    void should_count_a_failed_exchange_as_failed() {
        producer.send("direct:failing", e -> e.getMessage().setBody("request"));

        assertThat(meters.find(MicrometerConstants.DEFAULT_CAMEL_ROUTE_POLICY_EXCHANGES_FAILED_METER_NAME)
                .tag("routeId", "failing").counter().count()).isEqualTo(1);
        assertThat(meters.find(MicrometerConstants.DEFAULT_CAMEL_ROUTE_POLICY_EXCHANGES_SUCCEEDED_METER_NAME)
                .tag("routeId", "failing").counter().count()).isZero();
    }

    @Test
    void should_not_time_the_internal_group() {
        producer.sendBody("direct:entry", "request");

        assertThat(meters.find(MicrometerConstants.DEFAULT_CAMEL_ROUTE_POLICY_METER_NAME).tag("routeId", "inside").meters())
                .isEmpty();
        assertThat(context.getRoute("inside").getRoutePolicyList()).isEmpty();
    }

    @Test
    void should_make_the_meters_camel_micrometers_route_policy_makes() {
        producer.sendBody("direct:entry", "request");
        producer.sendBody("direct:camels", "request");

        assertThat(meterShapes("entry")).isNotEmpty().isEqualTo(meterShapes("camels"));
    }

    /** Each meter of a route: its name, type, and its tags with the route's id left out. */
    private Set<String> meterShapes(String routeId) {
        List<Meter> ofRoute = meters.getMeters().stream().filter(m -> routeId.equals(m.getId().getTag("routeId"))).toList();
        return ofRoute.stream().map(m -> m.getId().getName() + " " + m.getId().getType() + " " + m.getId().getTags().stream()
                        .filter(t -> !t.getKey().equals("routeId"))
                        .collect(Collectors.toMap(Tag::getKey, Tag::getValue, (a, b) -> a, TreeMap::new)))
                .collect(Collectors.toCollection(TreeSet::new));
    }
}
