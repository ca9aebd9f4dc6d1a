package dev.keypool.gateway;

import java.util.concurrent.ConcurrentHashMap;
import java.util.Map;
import java.util.Set;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * The client's JSON body as sent upstream: unchanged bytes when the channel serves the model under the
 * client's name, otherwise a copy with {@code model} renamed (modelMap, channel/model prefix, fallback).
 */
public final class UpstreamBody implements UpstreamPayload {

    private final ObjectMapper mapper;
    private final byte[] original;
    private final ObjectNode json;
    private final String clientModel;
    private final boolean usageAddedByGateway;
    private final Map<String, byte[]> renamed = new ConcurrentHashMap<>();

    /**
     * {@code askStreamUsage}: the API reports a stream's usage only when asked (chat, legacy completions); a stream
     * without stream_options then gets include_usage, so its tokens can be counted (design §6).
     */
    public UpstreamBody(ObjectMapper mapper, byte[] original, ObjectNode json, boolean askStreamUsage) {
        this.mapper = mapper;
        this.clientModel = json.path("model").asText();
        this.usageAddedByGateway = askStreamUsage && json.path("stream").asBoolean(false) && !json.has("stream_options");
        this.json = json;
        if (usageAddedByGateway) {
            // added to the client's tree itself, not to a copy of it: the request keeps one tree while in flight (its
            // token estimate reads the same one, and counts no stream_options)
            json.putObject("stream_options").put("include_usage", true);
            this.original = write(json);
        } else {
            this.original = original;
        }
    }

    /** OpenAI's {@code user} field: the end user the request is made for; null when the client names none. */
    public String user() {
        JsonNode user = json.get("user");
        return user != null && user.isTextual() ? user.asText() : null;
    }

    /** Whether the client asked for a repeatable answer: {@code temperature} 0, or a {@code seed}. */
    public boolean deterministic() {
        JsonNode temperature = json.get("temperature");
        JsonNode seed = json.get("seed");
        return temperature != null && temperature.isNumber() && temperature.asDouble() == 0
                || seed != null && !seed.isNull();
    }

    /** The client's body without {@code fields}, as bytes: what makes two requests the same for a response cache. */
    public byte[] without(Set<String> fields) {
        ObjectNode copy = json.deepCopy();
        copy.remove(fields);
        // the stream_options the gateway may have added is not the client's either
        if (usageAddedByGateway) {
            copy.remove("stream_options");
        }
        return write(copy);
    }

    /** The body as JSON, as the client sent it (with include_usage when the gateway added it). */
    public ObjectNode json() {
        return json;
    }

    @Override
    public String contentType() {
        return "application/json";
    }

    @Override
    public boolean usageAddedByGateway() {
        return usageAddedByGateway;
    }

    @Override
    public byte[] forModel(String upstreamModel) {
        if (upstreamModel.equals(clientModel)) {
            return original;
        }
        return renamed.computeIfAbsent(upstreamModel, m -> {
            ObjectNode copy = json.deepCopy();
            copy.put("model", m);
            return write(copy);
        });
    }

    private byte[] write(ObjectNode node) {
        try {
            return mapper.writeValueAsBytes(node);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("cannot write request body", e);
        }
    }
}
