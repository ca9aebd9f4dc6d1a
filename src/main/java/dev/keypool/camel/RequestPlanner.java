package dev.keypool.camel;

import java.io.IOException;
import java.util.Locale;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.keypool.gateway.Channels;
import dev.keypool.gateway.GatewayError;
import dev.keypool.gateway.GatewayRequest;
import dev.keypool.gateway.UpstreamBody;
import dev.keypool.quota.TokenEstimator;
import org.apache.camel.Exchange;
import org.apache.camel.component.platform.http.vertx.HttpMessage;

/** First step of the gateway core: rejects bad requests (400/404/413) and plans the channel chain of a good one. */
public final class RequestPlanner {

    private final Channels channels;
    private final ObjectMapper mapper;
    private final long maxBodyBytes;
    private final TokenEstimator tokens;

    public RequestPlanner(Channels channels, ObjectMapper mapper, long maxBodyBytes, TokenEstimator tokens) {
        this.tokens = tokens;
        this.channels = channels;
        this.mapper = mapper;
        this.maxBodyBytes = maxBodyBytes;
    }

    public void plan(Exchange exchange) {
        String endpoint = exchange.getProperty(Exchanges.ENDPOINT, String.class);
        byte[] raw = exchange.getMessage().getBody(byte[].class);
        if (raw == null || raw.length == 0) {
            throw GatewayError.badRequest("invalid_json", "Request body is empty; expected a JSON object");
        }
        if (raw.length > maxBodyBytes) {
            throw GatewayError.tooLarge(raw.length, maxBodyBytes);
        }
        ObjectNode json = parse(raw);
        JsonNode model = json.get("model");
        if (model == null || !model.isTextual() || model.asText().isBlank()) {
            throw GatewayError.badRequest("missing_model", "'model' is required and must be a non-empty string");
        }
        if ("chat/completions".equals(endpoint)) {
            JsonNode messages = json.get("messages");
            if (messages == null || !messages.isArray() || messages.isEmpty()) {
                throw GatewayError.badRequest("missing_messages", "'messages' is required and must be a non-empty array");
            }
        } else if (json.get("input") == null || json.get("input").isNull()) {
            throw GatewayError.badRequest("missing_input", "'input' is required");
        }
        JsonNode streamField = json.get("stream");
        if (streamField != null && !streamField.isNull() && !streamField.isBoolean()) {
            throw GatewayError.badRequest("invalid_type", "Invalid type for 'stream': expected a boolean, but got "
                    + streamField.getNodeType().name().toLowerCase(Locale.ROOT) + " instead");
        }
        boolean stream = "chat/completions".equals(endpoint) && streamField != null && streamField.asBoolean(false);
        if (stream) {
            HttpMessage http = exchange.getIn(HttpMessage.class);
            if (http == null) {
                throw GatewayError.badRequest("streaming_unsupported", "\"stream\": true needs the HTTP entry point");
            }
            exchange.setProperty(Exchanges.CLIENT_RESPONSE, http.getResponse());
        }
        exchange.setProperty(Exchanges.STREAM, stream);
        Channels.Plan plan = channels.plan(model.asText());
        exchange.setProperty(Exchanges.REQUEST,
                new GatewayRequest(endpoint, plan.model(), plan.chain(), new UpstreamBody(mapper, raw, json), stream,
                        () -> tokens.estimate(plan.model(), json, !"embeddings".equals(endpoint))));
    }

    private ObjectNode parse(byte[] raw) {
        try {
            JsonNode node = mapper.readTree(raw);
            if (node instanceof ObjectNode object) {
                return object;
            }
        } catch (JsonProcessingException e) {
            throw GatewayError.badRequest("invalid_json", "Request body is not valid JSON: " + e.getOriginalMessage());
        } catch (IOException e) {
            throw GatewayError.badRequest("invalid_json", "Request body could not be read");
        }
        throw GatewayError.badRequest("invalid_json", "Request body must be a JSON object");
    }
}
