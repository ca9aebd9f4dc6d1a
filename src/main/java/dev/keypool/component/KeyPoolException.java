package dev.keypool.component;

/**
 * A request the keypool component could not get answered: the gateway's own error (400 bad request, 404 unknown model,
 * 429 quota_exhausted, 503 no_channel_available or overloaded …) or a provider's 4xx passed back, with its HTTP status
 * and OpenAI error type and code. A host route handles it with {@code onException} like any other exception; the
 * getters serve Simple ({@code ${exception.status}}, {@code ${exception.code}}). The message is the gateway's and
 * never holds a key.
 */
public class KeyPoolException extends RuntimeException {

    private final int status;
    private final String type;
    private final String code;
    private final Long retryAfterSeconds;

    public KeyPoolException(int status, String type, String code, String message, Long retryAfterSeconds) {
        super(message);
        this.status = status;
        this.type = type;
        this.code = code;
        this.retryAfterSeconds = retryAfterSeconds;
    }

    /** The HTTP status the gateway would have answered. */
    public int getStatus() {
        return status;
    }

    /** OpenAI's error type, e.g. {@code rate_limit_error}. */
    public String getType() {
        return type;
    }

    /** OpenAI's error code, e.g. {@code quota_exhausted}; null when the provider gave none. */
    public String getCode() {
        return code;
    }

    /** When to try again, in seconds, where the gateway knows (429 and 503); else null. */
    public Long getRetryAfterSeconds() {
        return retryAfterSeconds;
    }

    @Override
    public String toString() {
        return "KeyPoolException[" + status + " " + code + "]: " + getMessage();
    }
}
