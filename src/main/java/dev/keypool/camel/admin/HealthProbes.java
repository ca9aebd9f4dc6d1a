package dev.keypool.camel.admin;

import java.time.Clock;
import java.util.List;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.keypool.auth.ProviderAuth;
import dev.keypool.camel.pipeline.AttemptOutcomes;
import dev.keypool.camel.pipeline.Exchanges;
import dev.keypool.camel.pipeline.ProviderHeaders;
import dev.keypool.pool.RetryAfter;
import dev.keypool.probe.Probe;
import dev.keypool.probe.ProbeSchedule;
import org.apache.camel.Exchange;
import org.apache.camel.Message;
import org.apache.camel.http.base.HttpOperationFailedException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** The steps of routes/probes.camel.yaml: which keys to probe now, each probe's request, its outcome, the report. */
public final class HealthProbes {

    private static final Logger LOG = LoggerFactory.getLogger(HealthProbes.class);

    private final ProbeSchedule schedule;
    private final ObjectMapper mapper;
    private final Clock clock;

    public HealthProbes(ProbeSchedule schedule, ObjectMapper mapper, Clock clock) {
        this.schedule = schedule;
        this.mapper = mapper;
        this.clock = clock;
    }

    /** probe-tick: the body becomes the probes due now. */
    public void due(Exchange exchange) {
        exchange.getMessage().setBody(schedule.due());
    }

    /** probe-cold-start: the body becomes one probe of every key of the channels with a probe block. */
    public void coldStart(Exchange exchange) {
        List<Probe> probes = schedule.coldStart();
        if (!probes.isEmpty()) {
            LOG.info("Cold-start probe of {} keys, in the background", probes.size());
        }
        exchange.getMessage().setBody(probes);
    }

    /** POST /admin/probe: the body becomes the probes that can go out now; all of them, skipped too, are kept for the report. */
    public void probeAll(Exchange exchange) {
        List<Probe> round = schedule.all();
        exchange.setProperty(Exchanges.PROBE_ROUND, round);
        exchange.getMessage().setBody(round.stream().filter(Probe::sendable).toList());
    }

    /** probe-key, before the call: the probe's URL, method, timeouts, credential and body. */
    public void prepare(Exchange exchange) {
        Probe probe = exchange.getMessage().getBody(Probe.class);
        exchange.setProperty(Exchanges.PROBE, probe);
        exchange.setProperty(Exchanges.UPSTREAM_URL, probe.url());
        exchange.setProperty(Exchanges.PROBE_METHOD, probe.method());
        exchange.setProperty(Exchanges.TIMEOUT_MS, probe.timeout().toMillis());
        exchange.setProperty(Exchanges.CONNECT_TIMEOUT_MS,
                Math.min(probe.channel().config().connectTimeout().toMillis(), probe.timeout().toMillis()));
        Exchanges.transport(exchange, probe.channel().config().provider());
        Message message = exchange.getMessage();
        ProviderHeaders.put(message, probe.channel().config());
        ProviderAuth auth = probe.channel().config().auth();
        message.setHeader(auth.headerName(), probe.key().credential(auth));
        byte[] body = probe.body();
        if (body != null) {
            message.setHeader(Exchange.CONTENT_TYPE, "application/json");
        }
        message.setBody(body);
    }

    /** The provider answered 2xx. */
    public void succeeded(Exchange exchange) {
        probe(exchange).succeeded();
    }

    /** doCatch of probe-key: a status the provider answered, or no answer at all. */
    public void failed(Exchange exchange) {
        Throwable e = exchange.getProperty(Exchange.EXCEPTION_CAUGHT, Throwable.class);
        if (e instanceof HttpOperationFailedException http) {
            probe(exchange).answered(http.getStatusCode(),
                    RetryAfter.parse(AttemptOutcomes.header(http.getResponseHeaders(), "Retry-After"), clock));
        } else {
            probe(exchange).unreachable(AttemptOutcomes.cause(e));
        }
    }

    /** POST /admin/probe: every key's probe as JSON, fingerprints only. */
    @SuppressWarnings("unchecked")
    public void report(Exchange exchange) throws Exception {
        ObjectNode root = mapper.createObjectNode();
        ArrayNode list = root.putArray("probes");
        for (Probe probe : (List<Probe>) exchange.getProperty(Exchanges.PROBE_ROUND, List.class)) {
            ObjectNode node = list.addObject();
            node.put("channel", probe.channel().name());
            node.put("key", probe.key().fingerprint());
            node.put("request", probe.request());
            node.put("outcome", probe.outcome());
            node.put("stateBefore", probe.stateBefore().name());
            node.put("stateAfter", probe.stateAfter() == null ? null : probe.stateAfter().name());
            node.put("latencyMs", probe.latencyMs());
        }
        Exchanges.answer(exchange.getMessage(), 200, "application/json",
                mapper.writerWithDefaultPrettyPrinter().writeValueAsBytes(root));
    }

    private static Probe probe(Exchange exchange) {
        return exchange.getProperty(Exchanges.PROBE, Probe.class);
    }
}
