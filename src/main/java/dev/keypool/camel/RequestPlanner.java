package dev.keypool.camel;

import java.io.IOException;
import java.util.Locale;
import java.util.function.Function;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.keypool.config.Api;
import dev.keypool.gateway.Channels;
import dev.keypool.gateway.GatewayError;
import dev.keypool.gateway.GatewayRequest;
import dev.keypool.gateway.MultipartBody;
import dev.keypool.gateway.MultipartForm;
import dev.keypool.gateway.UpstreamBody;
import dev.keypool.gateway.UpstreamPayload;
import dev.keypool.quota.TokenEstimate;
import dev.keypool.quota.TokenEstimator;
import org.apache.camel.Exchange;
import org.apache.camel.component.platform.http.vertx.HttpMessage;

/** First step of the gateway core: rejects bad requests (400/404/413) and plans the channel chain of a good one. */
public final class RequestPlanner {

    /** What a request costs that a key's token limits do not count (uploads, count_tokens). */
    private static final TokenEstimate NO_TOKENS = new TokenEstimate(0, 0);

    /** Anthropic's token counting endpoint (routes/messages.camel.yaml). */
    static final String COUNT_TOKENS = "messages/count_tokens";

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

    /** A JSON body with a {@code model}: chat, embeddings, responses and the JSON paths of keypool.passthrough-paths. */
    public void plan(Exchange exchange) {
        String endpoint = exchange.getProperty(Exchanges.ENDPOINT, String.class);
        Api api = api(exchange);
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
        if (api == Api.CHAT || api == Api.MESSAGES) {
            JsonNode messages = json.get("messages");
            if (messages == null || !messages.isArray() || messages.isEmpty()) {
                throw GatewayError.badRequest("missing_messages", "'messages' is required and must be a non-empty array");
            }
        } else if (api == Api.EMBEDDINGS && (json.get("input") == null || json.get("input").isNull())) {
            throw GatewayError.badRequest("missing_input", "'input' is required");
        }
        JsonNode streamField = json.get("stream");
        if (streamField != null && !streamField.isNull() && !streamField.isBoolean()) {
            throw GatewayError.badRequest("invalid_type", "Invalid type for 'stream': expected a boolean, but got "
                    + streamField.getNodeType().name().toLowerCase(Locale.ROOT) + " instead");
        }
        boolean stream = api.streams() && streamField != null && streamField.asBoolean(false);
        if (stream) {
            HttpMessage http = exchange.getIn(HttpMessage.class);
            if (http == null) {
                throw GatewayError.badRequest("streaming_unsupported", "\"stream\": true needs the HTTP entry point");
            }
            exchange.setProperty(Exchanges.CLIENT_RESPONSE, http.getResponse());
        }
        // counting a prompt's tokens (Anthropic's count_tokens) uses none of a key's token limits, only a request
        Function<String, TokenEstimate> estimate = COUNT_TOKENS.equals(endpoint) ? upstreamModel -> NO_TOKENS
                : upstreamModel -> tokens.estimate(upstreamModel, json, api.answers());
        start(exchange, endpoint, api, model.asText(), new UpstreamBody(mapper, raw, json, api.streamUsageOnRequest()), stream,
                estimate);
    }

    /**
     * A multipart upload with a {@code model} form field (audio transcriptions and translations): read whole from
     * the client (the entry route leaves it unread: platform-http would keep only the parsed form), checked, and
     * sent on byte for byte.
     */
    public void planMultipart(Exchange exchange) {
        String endpoint = exchange.getProperty(Exchanges.ENDPOINT, String.class);
        Api api = api(exchange);
        String contentType = exchange.getMessage().getHeader(Exchange.CONTENT_TYPE, String.class);
        byte[] raw = RequestBodies.read(exchange, maxBodyBytes);
        MultipartForm form = MultipartForm.of(raw, contentType).orElseThrow(() -> GatewayError.badRequest(
                "invalid_content_type", "Expected a multipart/form-data body with a boundary"));
        MultipartForm.Field model = form.field("model").filter(m -> !m.value().isBlank()).orElseThrow(() ->
                GatewayError.badRequest("missing_model", "'model' is required as a form field"));
        // an upload's cost is not counted in tokens: a key's token limits see none of it
        start(exchange, endpoint, api, model.value(), new MultipartBody(form, raw, contentType, model), false,
                upstreamModel -> NO_TOKENS);
    }

    private void start(Exchange exchange, String endpoint, Api api, String model, UpstreamPayload body, boolean stream,
                       Function<String, TokenEstimate> tokenEstimate) {
        exchange.setProperty(Exchanges.STREAM, stream);
        Channels.Plan plan = channels.plan(model, api);
        GatewayRequest request = new GatewayRequest(endpoint, api, plan.model(), plan.chain(), body, stream,
                () -> tokenEstimate.apply(plan.model()));
        exchange.setProperty(Exchanges.REQUEST, request);
        exchange.setProperty(Exchanges.UPSTREAM_CONTENT_TYPE, request.upstreamContentType());
    }

    /** The API the entry route named (kpApi). */
    private static Api api(Exchange exchange) {
        String name = exchange.getProperty(Exchanges.API, String.class);
        return Api.named(name).orElseThrow(() -> new IllegalStateException("entry route set no known API: " + name));
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
