package dev.keypool.auth;

import java.util.Arrays;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * How a channel's provider takes an API key ({@code auth:} in keypool.yaml): {@code Authorization: Bearer <key>}
 * (OpenAI and most compatible servers), {@code x-api-key: <key>} (Anthropic's own API) or {@code api-key: <key>}
 * (Azure OpenAI, implied by a channel's {@code type: azure}).
 */
public enum ProviderAuth {

    BEARER("bearer", Bearer.HEADER) {
        @Override
        public String headerValue(String key) {
            return Bearer.header(key);
        }
    },
    X_API_KEY("x-api-key", "x-api-key") {
        @Override
        public String headerValue(String key) {
            return key;
        }
    },
    API_KEY("api-key", "api-key") {
        @Override
        public String headerValue(String key) {
            return key;
        }
    };

    private final String configName;
    private final String headerName;

    ProviderAuth(String configName, String headerName) {
        this.configName = configName;
        this.headerName = headerName;
    }

    /** The name in keypool.yaml. */
    public String configName() {
        return configName;
    }

    /** The request header that carries the key. */
    public String headerName() {
        return headerName;
    }

    /** The value of {@link #headerName()} that presents {@code key}. */
    public abstract String headerValue(String key);

    public static Optional<ProviderAuth> named(String name) {
        return Arrays.stream(values()).filter(a -> a.configName.equals(name)).findFirst();
    }

    /** Every name, for error messages. */
    public static String names() {
        return Arrays.stream(values()).map(ProviderAuth::configName).collect(Collectors.joining(", "));
    }
}
