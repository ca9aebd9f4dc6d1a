package dev.keypool.gateway;

import java.nio.charset.StandardCharsets;
import java.util.concurrent.ConcurrentHashMap;
import java.util.Map;
import java.util.Set;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * The client's JSON body as sent upstream: unchanged bytes when the channel serves the model under the
 * client's name (with the stream's usage asked for first when the gateway asks), otherwise a copy with {@code model}
 * renamed (modelMap, channel/model prefix, fallback).
 */
public final class UpstreamBody implements UpstreamPayload {

    /** What a stream gets when the gateway asks for its usage chunk, as the first member of the body's object. */
    private static final byte[] STREAM_USAGE = "\"stream_options\":{\"include_usage\":true},"
            .getBytes(StandardCharsets.US_ASCII);

    private final ObjectMapper mapper;
    private final byte[] original;
    private final ObjectNode json;
    private final String clientModel;
    private final boolean usageAddedByGateway;
    private final Map<String, byte[]> renamed = new ConcurrentHashMap<>();

    /**
     * {@code askStreamUsage}: the API reports a stream's usage only when asked (chat, legacy completions); a stream
     * without stream_options then gets include_usage, so its tokens can be counted (design §6). {@code original}: the
     * bytes {@code json} was read from.
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
            this.original = inUtf8(original) ? withStreamUsage(original) : write(json);
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

    /**
     * The client's bytes with {@code "stream_options":{"include_usage":true}} as the object's first member: writing the
     * tree again cost most of a chat stream's read (async-profiler, bench/run.sh streams), and the rest goes on as the
     * client wrote it. The body parsed as an object with a {@code stream} member: its first '{' opens that object, and
     * a member follows.
     */
    private static byte[] withStreamUsage(byte[] body) {
        int open = 0;
        while (body[open] != '{') {
            open++;
        }
        byte[] spliced = new byte[body.length + STREAM_USAGE.length];
        System.arraycopy(body, 0, spliced, 0, open + 1);
        System.arraycopy(STREAM_USAGE, 0, spliced, open + 1, STREAM_USAGE.length);
        System.arraycopy(body, open + 1, spliced, open + 1 + STREAM_USAGE.length, body.length - open - 1);
        return spliced;
    }

    /**
     * Whether a JSON text is in UTF-8, which the bytes spliced in are (Jackson also reads UTF-16 and UTF-32, which are
     * written again instead): only those put a zero byte, or a UTF-16 byte order mark, in its first four bytes.
     */
    private static boolean inUtf8(byte[] body) {
        if (body.length >= 2 && (body[0] == (byte) 0xFE && body[1] == (byte) 0xFF
                || body[0] == (byte) 0xFF && body[1] == (byte) 0xFE)) {
            return false;
        }
        for (int i = 0; i < Math.min(4, body.length); i++) {
            if (body[i] == 0) {
                return false;
            }
        }
        return true;
    }

    private byte[] write(ObjectNode node) {
        try {
            return mapper.writeValueAsBytes(node);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("cannot write request body", e);
        }
    }
}
