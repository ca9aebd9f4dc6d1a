package dev.keypool.gateway;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * The tokens a provider reports in a {@code usage} object, whichever API wrote it: {@code prompt_tokens} /
 * {@code completion_tokens} (chat, completions, embeddings), {@code input_tokens} / {@code output_tokens}
 * (Responses, images, Anthropic's Messages). Anthropic counts cached prompt tokens apart from {@code input_tokens};
 * {@code cache_creation_input_tokens} and {@code cache_read_input_tokens} are added to the prompt, as OpenAI's
 * {@code prompt_tokens} include cached tokens. {@link #ABSENT} for a side the object does not report.
 */
public record TokenUsage(long promptTokens, long completionTokens) {

    /** A count the usage object does not carry (an Anthropic message_delta may report only output_tokens). */
    public static final long ABSENT = -1;

    public static TokenUsage of(JsonNode usage) {
        long prompt;
        if (usage.has("prompt_tokens")) {
            prompt = usage.path("prompt_tokens").asLong(0);
        } else if (usage.has("input_tokens") || usage.has("cache_creation_input_tokens") || usage.has("cache_read_input_tokens")) {
            prompt = usage.path("input_tokens").asLong(0) + usage.path("cache_creation_input_tokens").asLong(0)
                    + usage.path("cache_read_input_tokens").asLong(0);
        } else {
            prompt = ABSENT;
        }
        long completion = usage.has("completion_tokens") ? usage.path("completion_tokens").asLong(0)
                : usage.has("output_tokens") ? usage.path("output_tokens").asLong(0) : ABSENT;
        return new TokenUsage(prompt, completion);
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
