package dev.keypool.camel.admin;

import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.util.Map;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.keypool.camel.pipeline.Exchanges;
import dev.keypool.config.Durations;
import dev.keypool.fault.Fault;
import dev.keypool.fault.FaultKind;
import dev.keypool.fault.Faults;
import dev.keypool.gateway.Attempt;
import dev.keypool.gateway.GatewayError;
import dev.keypool.probe.Probe;
import org.apache.camel.Exchange;
import org.apache.camel.http.base.HttpOperationFailedException;

/**
 * Fault injection (design §9): the admin calls of /admin/faults, and {@link #apply}, the route step just before every
 * upstream call (a client request's attempt, or a health probe) that makes the call fail as the provider would.
 */
public final class FaultInjector {

    private final Faults faults;
    private final ObjectMapper mapper;

    public FaultInjector(Faults faults, ObjectMapper mapper) {
        this.faults = faults;
        this.mapper = mapper;
    }

    /** POST /admin/faults: 201 with the fault and its id, or 400 listing every problem of the body. */
    public void add(Exchange exchange) throws Exception {
        JsonNode body;
        try {
            body = mapper.readTree(exchange.getMessage().getBody(byte[].class));
        } catch (Exception notJson) {
            throw GatewayError.badRequest("invalid_fault", "The body must be a JSON object describing the fault");
        }
        Fault fault;
        try {
            fault = faults.add(body);
        } catch (Faults.InvalidFault invalid) {
            throw GatewayError.badRequest("invalid_fault", "Invalid fault: " + String.join("; ", invalid.problems()));
        }
        Exchanges.answer(exchange.getMessage(), 201, "application/json", mapper.writeValueAsBytes(json(fault)));
    }

    /** GET /admin/faults: the faults in force, oldest first. */
    public void list(Exchange exchange) throws Exception {
        ObjectNode root = mapper.createObjectNode();
        ArrayNode list = root.putArray("faults");
        faults.active().forEach(fault -> list.add(json(fault)));
        Exchanges.answer(exchange.getMessage(), 200, "application/json", mapper.writeValueAsBytes(root));
    }

    /** DELETE /admin/faults/{id}: ends the fault at once; 404 when none in force has that id. */
    public void remove(Exchange exchange) throws Exception {
        String id = exchange.getMessage().getHeader("id", String.class);
        Fault fault = faults.remove(id).orElseThrow(() -> new GatewayError(404, "invalid_request_error", "fault_not_found",
                "No fault in force has the id '" + id + "'", null));
        Exchanges.answer(exchange.getMessage(), 200, "application/json", mapper.writeValueAsBytes(json(fault)));
    }

    /** Timer route fault-expiry: faults whose duration is over end, with their WARN line, also when no call comes. */
    public void expire() {
        faults.expire();
    }

    /** Whether a fault is in force, which the call's step may suffer: asked before it, for each call. */
    public boolean inForce() {
        return faults.inForce();
    }

    /**
     * The step before the provider call: when a fault strikes this call, it fails as the provider would have made it
     * fail — a status as camel-http reports it ({@link HttpOperationFailedException}, so 429 cools the key and 5xx is
     * retried with backoff), a timeout after the channel's timeout, a reset connection at once — or it is delayed.
     */
    public void apply(Exchange exchange) throws Exception {
        Probe probe = exchange.getProperty(Exchanges.PROBE, Probe.class);
        String channel;
        String fingerprint;
        if (probe != null) {
            channel = probe.channel().name();
            fingerprint = probe.key().fingerprint();
        } else {
            Attempt attempt = Exchanges.request(exchange).attempt();
            channel = attempt.channel().name();
            fingerprint = attempt.key().fingerprint();
        }
        Fault fault = faults.strike(channel, fingerprint).orElse(null);
        if (fault == null) {
            return;
        }
        switch (fault.kind()) {
            case LATENCY -> Thread.sleep(fault.latencyMs());
            case TIMEOUT -> {
                Thread.sleep(exchange.getProperty(Exchanges.TIMEOUT_MS, Long.class));
                throw new SocketTimeoutException("Read timed out (injected " + fault.id() + ")");
            }
            case RESET -> throw new SocketException("Connection reset (injected " + fault.id() + ")");
            case STATUS -> throw new HttpOperationFailedException(exchange.getProperty(Exchanges.UPSTREAM_URL, String.class),
                    fault.status(), "Injected fault " + fault.id(), null, Map.of("Content-Type", "application/json"),
                    "{\"error\":{\"message\":\"injected fault " + fault.id() + "\",\"type\":\"injected_fault\",\"code\":\""
                            + fault.status() + "\"}}");
        }
    }

    private ObjectNode json(Fault fault) {
        ObjectNode node = mapper.createObjectNode();
        node.put("id", fault.id());
        node.put("channel", fault.channel());
        node.put("key", fault.key());
        node.put("kind", fault.kind().configName());
        if (fault.kind() == FaultKind.STATUS) {
            node.put("status", fault.status());
        }
        if (fault.kind() == FaultKind.LATENCY) {
            node.put("latencyMs", fault.latencyMs());
        }
        node.put("rate", fault.rate());
        node.put("duration", Durations.format(fault.duration()));
        node.put("addedAt", fault.addedAt().toString());
        node.put("endsAt", fault.endsAt().toString());
        return node;
    }
}
