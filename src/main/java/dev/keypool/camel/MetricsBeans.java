package dev.keypool.camel;

import dev.keypool.camel.http.NettyBuffers;
import dev.keypool.metrics.GatewayMetrics;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import org.apache.camel.CamelContext;
import org.apache.camel.NamedNode;
import org.apache.camel.component.micrometer.MicrometerConstants;
import org.apache.camel.component.micrometer.MicrometerUtils;
import org.apache.camel.component.micrometer.routepolicy.MicrometerRoutePolicyConfiguration;
import org.apache.camel.component.micrometer.routepolicy.MicrometerRoutePolicyFactory;
import org.apache.camel.model.RouteDefinition;
import org.apache.camel.spi.Registry;
import org.apache.camel.spi.RoutePolicy;

/** design §10: KeyPool's own metrics, and Camel's route timers, on the registry served at /observe/metrics. */
final class MetricsBeans {

    /**
     * The route group ({@code group:} in routes/*.camel.yaml) of the routes that get no timer of their own: the hops
     * every request crosses (gateway-core, fallback-walk, upstream-*, …) and the timers and lines of probes, batches
     * and tasks.
     */
    static final String UNTIMED_GROUP = "internal";

    private MetricsBeans() {
    }

    static GatewayMetrics bind(CamelContext context) {
        // off unless asked, as in Camel: an application embedding KeyPool may have no meter registry
        if (Wiring.flag(context, "camel.metrics.enabled")) {
            context.addRoutePolicyFactory(routeTimers(context));
        }
        MeterRegistry meters = metricsRegistry(context.getRegistry());
        GatewayMetrics metrics = new GatewayMetrics(meters,
                Boolean.parseBoolean(Wiring.setting(context, "keypool.metrics.tenant-labels")));
        NettyBuffers.bindMetrics(meters);
        context.getRegistry().bind("gatewayMetrics", metrics);
        return metrics;
    }

    /**
     * The registry behind /observe/metrics: camel-micrometer-prometheus's own when it has bound it already, else one
     * bound here under its name, which it then takes instead of making a second.
     */
    private static MeterRegistry metricsRegistry(Registry registry) {
        MeterRegistry meters = MicrometerUtils.getMeterRegistryFromCamelRegistry(registry, MicrometerConstants.METRICS_REGISTRY_NAME);
        if (meters == null) {
            meters = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
            registry.bind(MicrometerConstants.METRICS_REGISTRY_NAME, meters);
        }
        return meters;
    }

    /**
     * Timers for the routes a request enters by (chat-completions, embeddings, …) and for each channel route; not for
     * the routes of the group {@value #UNTIMED_GROUP}, nor Camel's context-wide timer, which counts each hop as one more
     * exchange. Camel's own route policy ({@code camel.metrics.enable-route-policy}, off in application.properties)
     * times every route twice.
     */
    private static MicrometerRoutePolicyFactory routeTimers(CamelContext context) {
        MicrometerRoutePolicyConfiguration timers = new MicrometerRoutePolicyConfiguration();
        timers.setContextEnabled(false);
        MicrometerRoutePolicyFactory factory = new MicrometerRoutePolicyFactory() {
            @Override
            public RoutePolicy createRoutePolicy(CamelContext camelContext, String routeId, NamedNode route) {
                // Camel adds no policy for a route the factory answers null for
                return route instanceof RouteDefinition definition && UNTIMED_GROUP.equals(definition.getGroup()) ? null
                        : super.createRoutePolicy(camelContext, routeId, route);
            }
        };
        factory.setCamelContext(context);
        factory.setPolicyConfiguration(timers);
        return factory;
    }
}
