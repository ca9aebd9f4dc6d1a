package dev.keypool.component;

/** The message headers of the keypool component. */
public final class KeyPoolConstants {

    /**
     * In: the tenant the request is made for (a name from keypool.yaml's tenants), taken only when the endpoint has no
     * tenant option or sets allowTenantHeader=true.
     */
    public static final String TENANT = "KeyPoolTenant";
    /**
     * In: a {@link KeyPoolStreamListener} that receives the events of a request with {@code "stream": true} as they
     * arrive; without one such a request is refused (400 streaming_unsupported).
     */
    public static final String STREAM_LISTENER = "KeyPoolStreamListener";
    /** Out: the channel that served the request (HTTP: X-KeyPool-Channel). */
    public static final String CHANNEL = "KeyPoolChannel";
    /** Out: the fingerprint of the key that served it, never the key (HTTP: X-KeyPool-Key). */
    public static final String KEY = "KeyPoolKey";
    /** Out: upstream calls made for the request (HTTP: X-KeyPool-Attempts). */
    public static final String ATTEMPTS = "KeyPoolAttempts";
    /** Out: 0 for the primary channel, n for the n-th channel of its fallback chain (HTTP: X-Fallback-Level). */
    public static final String FALLBACK_LEVEL = "KeyPoolFallbackLevel";

    private KeyPoolConstants() {
    }
}
