package dev.keypool.config;

import java.net.URI;
import java.time.Duration;
import java.util.Objects;

/**
 * Where the state that several gateway instances share lives (design §11 {@code redis:}): the server's URL, the prefix of
 * every key KeyPool writes there, and how long a Redis call may take before Redis counts as down.
 */
public record RedisConfig(String url, String keyPrefix, Duration timeout) {

    public static final String DEFAULT_PREFIX = "keypool";
    public static final Duration DEFAULT_TIMEOUT = Duration.ofMillis(50);

    public RedisConfig {
        Objects.requireNonNull(url, "url");
        Objects.requireNonNull(keyPrefix, "keyPrefix");
        Objects.requireNonNull(timeout, "timeout");
    }

    /** The URL without its user and password, for logs. */
    public String safeUrl() {
        try {
            URI uri = URI.create(url);
            return uri.getUserInfo() == null ? url : url.replace(uri.getRawUserInfo() + "@", "***@");
        } catch (IllegalArgumentException e) {
            return "(unreadable Redis URL)";
        }
    }

    /** Without the password a URL may carry. */
    @Override
    public String toString() {
        return "RedisConfig[url=" + safeUrl() + ", keyPrefix=" + keyPrefix + ", timeout=" + timeout + "]";
    }
}
