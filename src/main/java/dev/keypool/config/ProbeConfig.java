package dev.keypool.config;

import java.time.Duration;
import java.util.Arrays;
import java.util.Locale;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * The health probes of one channel (design §8 {@code probe:}): ACTIVE keys every {@code interval}, DISABLED keys every
 * {@code disabledInterval} (0 = never), each probe a {@code request} that may take {@code timeout}. {@code model} is the
 * model a chat probe asks for (the upstream name: sent as it is).
 */
public record ProbeConfig(Duration interval, Duration disabledInterval, Request request, String model, Duration timeout) {

    /** What a probe asks the provider. */
    public enum Request {
        /** GET {baseUrl}/models: costs no tokens. */
        MODELS,
        /** POST {baseUrl}/chat/completions, one token of {@code model}: also proves the key may call the model. */
        CHAT;

        public String configName() {
            return name().toLowerCase(Locale.ROOT);
        }

        static Optional<Request> named(String name) {
            return Arrays.stream(values()).filter(r -> r.configName().equals(name)).findFirst();
        }

        static String names() {
            return Arrays.stream(values()).map(Request::configName).collect(Collectors.joining(", "));
        }
    }

    public static final Duration DEFAULT_INTERVAL = Duration.ofSeconds(60);
    public static final Duration DEFAULT_DISABLED_INTERVAL = Duration.ofMinutes(10);
    public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(10);
}
