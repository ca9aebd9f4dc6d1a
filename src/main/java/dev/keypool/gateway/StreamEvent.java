package dev.keypool.gateway;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * What one SSE event of a stream says, as far as accounting needs to know (read by {@link StreamFormat}). With
 * {@code hasUsage}, a side of the usage the event does not report is {@link TokenUsage#ABSENT}. {@code failed}: the
 * event ends the stream because the provider failed (Responses' {@code response.failed}, an {@code error} event).
 */
public record StreamEvent(boolean done, boolean usageOnly, long promptTokens, long completionTokens, boolean hasUsage,
                          boolean failed, long cachedTokens, long cacheWriteTokens) {

    /** An event without prompt-cache counts. */
    public StreamEvent(boolean done, boolean usageOnly, long promptTokens, long completionTokens, boolean hasUsage,
                       boolean failed) {
        this(done, usageOnly, promptTokens, completionTokens, hasUsage, failed, 0, 0);
    }

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
        return new StreamEvent(done, usageOnly, tokens.promptTokens(), tokens.completionTokens(), true, failed,
                tokens.cachedTokens(), tokens.cacheWriteTokens());
    }
}
