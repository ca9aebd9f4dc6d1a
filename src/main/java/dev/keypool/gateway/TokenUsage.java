package dev.keypool.gateway;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * The tokens a provider reports in a {@code usage} object, whichever API wrote it: {@code prompt_tokens} /
 * {@code completion_tokens} (chat, completions, embeddings), {@code input_tokens} / {@code output_tokens}
 * (Responses, images, Anthropic's Messages). Anthropic counts cached prompt tokens apart from {@code input_tokens};
 * {@code cache_creation_input_tokens} and {@code cache_read_input_tokens} are added to the prompt, as OpenAI's
 * {@code prompt_tokens} include cached tokens. {@link #ABSENT} for a side the object does not report.
 *
 * @param cachedTokens     prompt tokens read from the provider's prompt cache (OpenAI's
 *                         {@code prompt_tokens_details.cached_tokens}, Responses' {@code input_tokens_details.cached_tokens},
 *                         Anthropic's {@code cache_read_input_tokens}); part of {@code promptTokens}
 * @param cacheWriteTokens prompt tokens written to the cache (Anthropic's {@code cache_creation_input_tokens}); part of
 *                         {@code promptTokens}
 */
public record TokenUsage(long promptTokens, long completionTokens, long cachedTokens, long cacheWriteTokens) {

    /** A count the usage object does not carry (an Anthropic message_delta may report only output_tokens). */
    public static final long ABSENT = -1;

    /** Usage without any prompt caching. */
    public TokenUsage(long promptTokens, long completionTokens) {
        this(promptTokens, completionTokens, 0, 0);
    }

    public static TokenUsage of(JsonNode usage) {
        long prompt;
        long cached = 0;
        long cacheWrite = 0;
        if (usage.has("prompt_tokens")) {
            prompt = usage.path("prompt_tokens").asLong(0);
            cached = usage.path("prompt_tokens_details").path("cached_tokens").asLong(0);
        } else if (usage.has("input_tokens") || usage.has("cache_creation_input_tokens") || usage.has("cache_read_input_tokens")) {
            cacheWrite = usage.path("cache_creation_input_tokens").asLong(0);
            long cacheRead = usage.path("cache_read_input_tokens").asLong(0);
            prompt = usage.path("input_tokens").asLong(0) + cacheWrite + cacheRead;
            // Responses counts cached tokens inside input_tokens; Anthropic apart from it
            cached = cacheRead + usage.path("input_tokens_details").path("cached_tokens").asLong(0);
        } else {
            prompt = ABSENT;
        }
        long completion = usage.has("completion_tokens") ? usage.path("completion_tokens").asLong(0)
                : usage.has("output_tokens") ? usage.path("output_tokens").asLong(0) : ABSENT;
        return new TokenUsage(prompt, completion, Math.max(0, cached), Math.max(0, cacheWrite));
    }

    /** The prompt tokens, 0 when not reported. */
    public long prompt() {
        return Math.max(0, promptTokens);
    }

    /** The answer's tokens, 0 when not reported. */
    public long completion() {
        return Math.max(0, completionTokens);
    }
}
