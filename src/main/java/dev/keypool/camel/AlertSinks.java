package dev.keypool.camel;

import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.atomic.AtomicBoolean;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.keypool.alert.Alert;
import dev.keypool.events.EventLog;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import org.apache.camel.CamelContext;
import org.apache.camel.Exchange;
import org.apache.camel.Message;
import org.apache.camel.support.DefaultExchange;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Where alerts go: a WARN line, an event of {@code /admin/events}, and each sink of keypool.yaml's {@code alerts.sinks}.
 * Each sink has its own bounded queue and route (routes/alerts.camel.yaml, one route per sink made by
 * {@link AlertSinkRoutes}); an alert is offered to every queue without waiting, so a sink that is slow or down holds
 * its own route only, never the request that raised the alert nor the other sinks. A full queue drops the alert for
 * that sink and counts it ({@code keypool_alerts_dropped_total{sink}}).
 */
public final class AlertSinks {

    private static final Logger LOG = LoggerFactory.getLogger(AlertSinks.class);

    /** The exchange properties the sink route sets from its template: the sink's number and its body's format. */
    static final String SINK = "kpAlertSink";
    static final String FORMAT = "kpAlertFormat";
    static final String JSON = "json";
    static final String TEXT = "text";
    /** Components whose messages are read by people (mail, chat): a subject and a plain text body rather than JSON. */
    private static final Set<String> TEXT_SCHEMES = Set.of("smtp", "smtps", "slack", "telegram");

    /**
     * One configured sink: its URI, never logged (a password, or a webhook's secret path such as Slack's), its label
     * for logs and metrics ({@code <n>-<scheme>}, e.g. {@code 0-http}), queue and counters.
     */
    record Sink(int index, String uri, String label, String format, BlockingQueue<Exchange> queue, Counter dropped,
                Counter failed, AtomicBoolean failing) {
    }

    private final List<Sink> sinks;
    private final EventLog events;
    private final ObjectMapper mapper;
    private final CamelContext context;
    private final MeterRegistry meters;

    AlertSinks(List<Sink> sinks, EventLog events, ObjectMapper mapper, CamelContext context, MeterRegistry meters) {
        this.sinks = List.copyOf(sinks);
        this.events = events;
        this.mapper = mapper;
        this.context = context;
        this.meters = meters;
    }

    /** The body format a sink of this URI gets: text for mail and chat components, JSON for the rest. */
    static String formatOf(String uri) {
        String scheme = uri.substring(0, uri.indexOf(':')).toLowerCase(Locale.ROOT);
        return TEXT_SCHEMES.contains(scheme) ? TEXT : JSON;
    }

    List<Sink> sinks() {
        return sinks;
    }

    /** An alert of the rules: logged, kept as an event, offered to every sink; never waits, never throws. */
    public void raise(Alert alert) {
        LOG.warn("Alert {} [{}]: {}", alert.rule().configName(), alert.subject(), alert.message());
        events.stateChanged(alert);
        Counter.builder("keypool_alerts").description("Alerts raised, by rule (at most one per rule and subject per period)")
                .tag("rule", alert.rule().configName()).register(meters).increment();
        for (Sink sink : sinks) {
            Exchange exchange = new DefaultExchange(context);
            exchange.getMessage().setBody(alert);
            if (!sink.queue().offer(exchange)) {
                sink.dropped().increment();
            }
        }
    }

    /** First step of a sink's route: the alert as the sink's body, JSON or text, with a subject for mail. */
    public void prepare(Exchange exchange) throws JsonProcessingException {
        Alert alert = exchange.getMessage().getBody(Alert.class);
        Message message = exchange.getMessage();
        message.removeHeaders("*");
        if (TEXT.equals(exchange.getProperty(FORMAT, String.class))) {
            // camel-mail takes the subject from this header; chat components ignore it
            message.setHeader("subject", alert.title());
            message.setHeader(Exchange.CONTENT_TYPE, "text/plain; charset=UTF-8");
            message.setBody(alert.message() + "\n\nrule: " + alert.rule().configName() + "\nsubject: " + alert.subject()
                    + (alert.channel().isEmpty() ? "" : "\nchannel: " + alert.channel()) + "\nat: " + alert.at() + "\n");
        } else {
            message.setHeader(Exchange.CONTENT_TYPE, "application/json");
            message.setHeader(Exchange.HTTP_METHOD, "POST");
            message.setBody(json(alert));
        }
    }

    /** {@code {"at","rule","subject","channel","title","message"}}: what a webhook or a topic gets. */
    String json(Alert alert) throws JsonProcessingException {
        ObjectNode node = mapper.createObjectNode();
        node.put("at", alert.at().toString());
        node.put("rule", alert.rule().configName());
        node.put("subject", alert.subject());
        if (!alert.channel().isEmpty()) {
            node.put("channel", alert.channel());
        }
        node.put("title", alert.title());
        node.put("message", alert.message());
        return mapper.writeValueAsString(node);
    }

    /** A sink's route succeeded: a sink that was failing is said to be back. */
    public void sent(Exchange exchange) {
        Sink sink = sink(exchange);
        if (sink != null && sink.failing().compareAndSet(true, false)) {
            LOG.info("Alert sink {} (alerts.sinks[{}]) takes alerts again", sink.label(), sink.index());
        }
    }

    /** onException of a sink's route: the alert is lost for this sink, counted; the first failure of a run is logged. */
    public void failed(Exchange exchange) {
        Sink sink = sink(exchange);
        if (sink == null) {
            return;
        }
        sink.failed().increment();
        if (sink.failing().compareAndSet(false, true)) {
            Throwable cause = exchange.getProperty(Exchange.EXCEPTION_CAUGHT, Throwable.class);
            LOG.warn("Alert sink {} (alerts.sinks[{}]) failed ({}); its alerts are counted in "
                    + "keypool_alert_sink_failures_total until it takes them again", sink.label(), sink.index(), cause == null ? "unknown" : cause.getClass().getSimpleName());
        }
    }

    private Sink sink(Exchange exchange) {
        Integer index = exchange.getProperty(SINK, Integer.class);
        return index == null || index < 0 || index >= sinks.size() ? null : sinks.get(index);
    }
}
