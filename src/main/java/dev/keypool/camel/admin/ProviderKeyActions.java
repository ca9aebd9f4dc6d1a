package dev.keypool.camel.admin;

import java.io.IOException;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.keypool.admin.ProviderKeys;
import dev.keypool.camel.pipeline.Exchanges;
import dev.keypool.gateway.GatewayError;
import org.apache.camel.Exchange;

/**
 * The routes of routes/provider-keys.camel.yaml: {@code POST /admin/channels/{name}/keys} {@code {"key":"…","label":"…"}}
 * adds a provider key (answered by its fingerprint, never the key), {@code DELETE /admin/channels/{name}/keys/{fingerprint}}
 * drains and removes one, and the timer that applies what other instances did. After each change the metrics and
 * the health probes take the channel's keys as they are now.
 */
public final class ProviderKeyActions {

    private final ProviderKeys keys;
    private final Runnable keysChanged;
    private final ObjectMapper mapper;

    /** @param keysChanged what must take the channels' keys as they are now after each change (metrics, probes) */
    public ProviderKeyActions(ProviderKeys keys, Runnable keysChanged, ObjectMapper mapper) {
        this.keys = keys;
        this.keysChanged = keysChanged;
        this.mapper = mapper;
    }

    /** POST /admin/channels/{name}/keys: 201 with the key's fingerprint. */
    public void add(Exchange exchange) throws IOException {
        JsonNode body = json(exchange);
        JsonNode key = body.path("key");
        if (!key.isTextual() || key.asText().isBlank()) {
            throw GatewayError.badRequest("invalid_key", "'key' must be the provider's API key, as a string");
        }
        JsonNode label = body.path("label");
        if (!label.isMissingNode() && !label.isNull() && !label.isTextual()) {
            throw GatewayError.badRequest("invalid_label", "'label' must be a string");
        }
        ProviderKeys.Change added = keys.add(exchange.getMessage().getHeader("name", String.class), key.asText(),
                label.isTextual() && !label.asText().isBlank() ? label.asText().strip() : null);
        keysChanged.run();
        answer(exchange, 201, added, "added");
    }

    /** DELETE /admin/channels/{name}/keys/{fingerprint}: 200; the key drains, then is let go. */
    public void remove(Exchange exchange) throws IOException {
        ProviderKeys.Change removed = keys.remove(exchange.getMessage().getHeader("name", String.class),
                exchange.getMessage().getHeader("fingerprint", String.class));
        keysChanged.run();
        answer(exchange, 200, removed, "removed");
    }

    /** Timer: keys other instances added or removed. */
    public void sync() {
        if (keys.sync()) {
            keysChanged.run();
        }
    }

    private void answer(Exchange exchange, int status, ProviderKeys.Change change, String what) throws IOException {
        ObjectNode answer = mapper.createObjectNode();
        answer.put("channel", change.channel());
        answer.put("fingerprint", change.fingerprint());
        if (change.label() != null) {
            answer.put("label", change.label());
        }
        answer.put(what, true);
        if (what.equals("removed")) {
            answer.put("inFlight", change.inFlight());
        }
        Exchanges.answer(exchange.getMessage(), status, "application/json", mapper.writeValueAsBytes(answer));
    }

    private JsonNode json(Exchange exchange) {
        byte[] body = exchange.getMessage().getBody(byte[].class);
        if (body == null || body.length == 0) {
            throw GatewayError.badRequest("invalid_json", "Request body is empty; expected {\"key\":\"...\"}");
        }
        try {
            JsonNode node = mapper.readTree(body);
            if (node == null || !node.isObject()) {
                throw GatewayError.badRequest("invalid_json", "Request body must be a JSON object {\"key\":\"...\"}");
            }
            return node;
        } catch (IOException e) {
            // not Jackson's message: it quotes the body, which holds the key
            throw GatewayError.badRequest("invalid_json", "Request body is not valid JSON");
        }
    }
}
