package dev.keypool.gateway;

import java.io.IOException;
import java.nio.charset.StandardCharsets;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

/**
 * What one SSE event of a stream says, as far as accounting needs to know (read by {@link StreamFormat}). With
 * {@code hasUsage}, a side of the usage the event does not report is {@link TokenUsage#ABSENT}. {@code failed}: the
 * event ends the stream because the provider failed (Responses' {@code response.failed}, an {@code error} event).
 */
public record StreamEvent(boolean done, boolean usageOnly, long promptTokens, long completionTokens, boolean hasUsage,
                          boolean failed) {

    static final StreamEvent OTHER = new StreamEvent(false, false, 0, 0, false, false);

    /** The event that ends a stream and reports no usage. */
    static StreamEvent end(boolean failed) {
        return new StreamEvent(true, false, 0, 0, false, failed);
    }

    /** An event that reports the tokens of {@code usage} ({@link TokenUsage}). */
    static StreamEvent withUsage(boolean done, boolean usageOnly, JsonNode usage) {
        return withUsage(done, usageOnly, usage, false);
    }

    static StreamEvent withUsage(boolean done, boolean usageOnly, JsonNode usage, boolean failed) {
        TokenUsage tokens = TokenUsage.of(usage);
        return new StreamEvent(done, usageOnly, tokens.promptTokens(), tokens.completionTokens(), true, failed);
    }

    public static StreamEvent read(byte[] event, ObjectMapper mapper) {
        String text = new String(event, StandardCharsets.UTF_8).strip();
        if (!text.startsWith("data:")) {
            return OTHER;
        }
        String data = text.substring("data:".length()).strip();
        if ("[DONE]".equals(data)) {
            return end(false);
        }
        if (!data.contains("\"usage\"")) {
            return OTHER;   // most events: no need to parse them
        }
        try {
            JsonNode chunk = mapper.readTree(data);
            JsonNode usage = chunk.path("usage");
            if (!usage.isObject()) {
                return OTHER;
            }
            boolean usageOnly = chunk.path("choices").isArray() && chunk.path("choices").isEmpty();
            return withUsage(false, usageOnly, usage);
        } catch (IOException notJson) {
            return OTHER;
        }
    }
}
