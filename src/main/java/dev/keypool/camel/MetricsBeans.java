package dev.keypool.camel;

import dev.keypool.camel.http.NettyBuffers;
import dev.keypool.metrics.GatewayMetrics;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import org.apache.camel.CamelContext;
import org.apache.camel.component.micrometer.MicrometerConstants;
import org.apache.camel.component.micrometer.MicrometerUtils;
import org.apache.camel.spi.Registry;

/** design §10: KeyPool's own metrics, and Camel's route timers, on the registry served at /observe/metrics. */
final class MetricsBeans {

    private MetricsBeans() {
    }

    static GatewayMetrics bind(CamelContext context) {
        MeterRegistry meters = metricsRegistry(context.getRegistry());
        // off unless asked, as in Camel: an application embedding KeyPool may have no meter registry
        if (Wiring.flag(context, "camel.metrics.enabled")) {
            // timers for the routes a request enters by (chat-completions, embeddings, …) and for each channel route; not
            // Camel's context-wide timer, which counts each hop as one more exchange, nor Camel's own route policy
            // (camel.metrics.enable-route-policy, off in application.properties), which times every route twice
            context.addRoutePolicyFactory(new RouteTimers(meters));
        }
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
}
