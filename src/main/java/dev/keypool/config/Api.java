package dev.keypool.config;

import java.util.Arrays;
import java.util.EnumSet;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;

/** The OpenAI APIs a channel may serve ({@code apis:} in keypool.yaml); a request goes only to channels serving its API. */
public enum Api {
    CHAT, RESPONSES, EMBEDDINGS, COMPLETIONS, MODERATIONS, IMAGES, AUDIO, RERANK;

    /** What a channel serves when its {@code apis} is not set (SPEC §14). */
    public static final Set<Api> DEFAULT = Set.copyOf(EnumSet.of(CHAT, EMBEDDINGS, COMPLETIONS));

    /** The name in keypool.yaml and application.properties, e.g. {@code responses}. */
    public String configName() {
        return name().toLowerCase(Locale.ROOT);
    }

    public static Optional<Api> named(String name) {
        return Arrays.stream(values()).filter(a -> a.configName().equals(name)).findFirst();
    }

    /** Every name, for error messages: "chat, responses, …". */
    public static String names() {
        return Arrays.stream(values()).map(Api::configName).collect(Collectors.joining(", "));
    }

    /** Whether {@code "stream": true} makes the provider answer Server-Sent Events that KeyPool relays. */
    public boolean streams() {
        return this == CHAT || this == COMPLETIONS || this == RESPONSES;
    }

    /** Whether the provider writes an answer of tokens (chat, completions, responses), not only reads them. */
    public boolean answers() {
        return this == CHAT || this == COMPLETIONS || this == RESPONSES;
    }

    /** Whether a stream carries its usage only when asked with {@code stream_options.include_usage} (chat, completions). */
    public boolean streamUsageOnRequest() {
        return this == CHAT || this == COMPLETIONS;
    }
}
