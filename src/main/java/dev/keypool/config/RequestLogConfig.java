package dev.keypool.config;

/**
 * The request log ({@code requestLog:}): one row per request in the database, on unless {@code enabled: false};
 * {@code bodies: true} also keeps each request's body and its answer, capped (off by default).
 */
public record RequestLogConfig(boolean enabled, boolean bodies) {

    /** A file without a {@code requestLog} block: every request is logged, without its text. */
    public static final RequestLogConfig DEFAULT = new RequestLogConfig(true, false);
}
