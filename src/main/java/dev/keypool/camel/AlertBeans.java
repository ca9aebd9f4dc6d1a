package dev.keypool.camel;

import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.function.Consumer;
import java.util.concurrent.atomic.AtomicBoolean;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.keypool.alert.Alert;
import dev.keypool.alert.AlertThrottle;
import dev.keypool.alert.Alerts;
import dev.keypool.alert.LocalAlertThrottle;
import dev.keypool.config.AlertsConfig;
import dev.keypool.config.GatewayConfig;
import dev.keypool.events.EventLog;
import dev.keypool.events.StateListeners;
import dev.keypool.gateway.Channels;
import dev.keypool.redis.RedisAlertThrottle;
import dev.keypool.redis.RedisLink;
import dev.keypool.tenant.Tenants;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import org.apache.camel.CamelContext;
import org.apache.camel.Exchange;
import org.apache.camel.component.micrometer.MicrometerConstants;
import org.apache.camel.component.micrometer.MicrometerUtils;
import org.apache.camel.spi.Registry;
import org.apache.camel.support.DefaultExchange;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The beans of routes/alerts.camel.yaml, bound by {@link GatewayConfiguration}: {@code alerts} (the rules, checked on
 * a timer and listening to every key and breaker change), {@code alertSinks} and one bounded queue per sink,
 * {@code alertQueue-<n>}, that the sink's seda endpoint reads. With {@code redis:} the throttle is shared by the
 * instances, and the alerts wait for it in {@code alertRaiseQueue} (the alert-raise route), off the thread of the
 * change that raised them.
 */
final class AlertBeans {

    private static final Logger LOG = LoggerFactory.getLogger(AlertBeans.class);

    private AlertBeans() {
    }

    static void bind(CamelContext context, GatewayConfig config, Channels channels, Tenants tenants, EventLog events,
                     StateListeners stateListeners, Clock clock, ObjectMapper mapper, RedisLink redis) {
        Registry registry = context.getRegistry();
        AlertsConfig settings = config.alerts();
        int queueSize = Integer.parseInt(context.getPropertiesComponent().resolveProperty("keypool.alerts.queue-size")
                .orElseThrow(() -> new IllegalStateException(
                        "Setting keypool.alerts.queue-size is missing: start KeyPool with its application.properties")));
        MeterRegistry meters = MicrometerUtils.getMeterRegistryFromCamelRegistry(registry,
                MicrometerConstants.METRICS_REGISTRY_NAME);
        List<AlertSinks.Sink> sinks = new ArrayList<>();
        for (String uri : settings.sinks()) {
            int index = sinks.size();
            String label = index + "-" + uri.substring(0, uri.indexOf(':'));
            LinkedBlockingQueue<Exchange> queue = new LinkedBlockingQueue<>(queueSize);
            registry.bind("alertQueue-" + index, queue);
            sinks.add(new AlertSinks.Sink(index, uri, label, AlertSinks.formatOf(uri), queue,
                    Counter.builder("keypool_alerts_dropped").description("Alerts not sent to a sink: its queue was full")
                            .tag("sink", label).register(meters),
                    Counter.builder("keypool_alert_sink_failures").description("Alerts a sink failed to take")
                            .tag("sink", label).register(meters),
                    new AtomicBoolean()));
        }
        AlertSinks alertSinks = new AlertSinks(sinks, events, mapper, context, meters);
        registry.bind("alertSinks", alertSinks);
        // with Redis one instance of several sends each alert: the throttle asks Redis, never on a request's thread
        AlertThrottle throttle = redis == null ? new LocalAlertThrottle(settings.period(), clock)
                : new RedisAlertThrottle(redis, settings.period(), clock);
        // the alert-raise route reads it; alone, alerts are raised on the thread of the change and it stays empty
        LinkedBlockingQueue<Exchange> raiseQueue = new LinkedBlockingQueue<>(queueSize);
        registry.bind("alertRaiseQueue", raiseQueue);
        Consumer<Alert> handOff = null;
        if (redis != null) {
            Counter lost = Counter.builder("keypool_alerts_dropped")
                    .description("Alerts not sent to a sink: its queue was full").tag("sink", "all").register(meters);
            handOff = alert -> {
                Exchange exchange = new DefaultExchange(context);
                exchange.getMessage().setBody(alert);
                if (!raiseQueue.offer(exchange)) {
                    lost.increment();
                }
            };
        }
        Alerts alerts = new Alerts(settings, channels, tenants, config.tenants(),
                () -> requestLogDropped(meters), clock, throttle, handOff, alertSinks::raise);
        stateListeners.add(alerts);
        registry.bind("alerts", alerts);
        if (redis != null) {
            // alone for a whole check: each instance keeps the limits by itself meanwhile
            alerts.watchAlone(redis::aloneFor, Duration.ofMillis(Wiring.longSetting(context, "keypool.alerts.check-ms")));
        }
        LOG.info("Alerts: {} sinks ({}), at most one per rule and subject every {}{}{}", sinks.size(),
                String.join(", ", sinks.stream().map(AlertSinks.Sink::label).toList()), settings.period(),
                redis == null ? "" : " across the instances sharing the Redis",
                settings.off().isEmpty() ? "" : "; rules off: " + String.join(", ", settings.off()));
    }

    /** What the request log has lost so far, as keypool_request_log_dropped_total counts it. */
    private static long requestLogDropped(MeterRegistry meters) {
        Counter dropped = meters.find("keypool_request_log_dropped").counter();
        return dropped == null ? 0 : (long) dropped.count();
    }
}
