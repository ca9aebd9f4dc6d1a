package dev.keypool.translate;

/**
 * What a translation needs that the client's request may not say.
 *
 * @param defaultMaxTokens the {@code max_tokens} an Anthropic provider requires, for an OpenAI request that names none
 *                         ({@code keypool.translate.default-max-tokens})
 */
public record TranslationSettings(long defaultMaxTokens) {
}
