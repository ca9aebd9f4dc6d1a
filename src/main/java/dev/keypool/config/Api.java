package dev.keypool.config;

import java.util.Arrays;
import java.util.EnumSet;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * The APIs a channel may serve ({@code apis:} in keypool.yaml): the OpenAI ones, and Anthropic's Messages API
 * ({@code /v1/messages}, {@code /v1/messages/count_tokens}). A request goes only to channels serving its API.
 */
public enum Api {
    CHAT, RESPONSES, EMBEDDINGS, COMPLETIONS, MODERATIONS, IMAGES, AUDIO, RERANK, MESSAGES;

    /** What a channel serves when its {@code apis} is not set (design §14). */
    public static final Set<Api> DEFAULT = Set.copyOf(EnumSet.of(CHAT, EMBEDDINGS, COMPLETIONS));

    private static final Api[] VALUES = values();

    private final String configName = name().toLowerCase(Locale.ROOT);

    /** The name in keypool.yaml and application.properties, e.g. {@code responses}. */
    public String configName() {
        return configName;
    }

    public static Optional<Api> named(String name) {
        // a loop over the constants, not a stream of a copy of them: every request names its API
        for (Api api : VALUES) {
            if (api.configName().equals(name)) {
                return Optional.of(api);
            }
        }
        return Optional.empty();
    }

    /** Every name, for error messages: "chat, responses, …". */
    public static String names() {
        return Arrays.stream(values()).map(Api::configName).collect(Collectors.joining(", "));
    }

    /** Whether {@code "stream": true} makes the provider answer Server-Sent Events that KeyPool relays. */
    public boolean streams() {
        return this == CHAT || this == COMPLETIONS || this == RESPONSES || this == MESSAGES;
    }

    /** Whether the provider writes an answer of tokens (chat, completions, responses, messages), not only reads them. */
    public boolean answers() {
        return this == CHAT || this == COMPLETIONS || this == RESPONSES || this == MESSAGES;
    }

    /** Anthropic's API: its own error shape, its own stream events, and its version headers forwarded. */
    public boolean anthropic() {
        return this == MESSAGES;
    }

    /** Whether a stream carries its usage only when asked with {@code stream_options.include_usage} (chat, completions). */
    public boolean streamUsageOnRequest() {
        return this == CHAT || this == COMPLETIONS;
    }
}
