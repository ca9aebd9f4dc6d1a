package dev.keypool.config;

/** The request log ({@code requestLog:}): one row per request in the database, on unless {@code enabled: false}. */
public record RequestLogConfig(boolean enabled) {

    /** A file without a {@code requestLog} block: every request is logged. */
    public static final RequestLogConfig DEFAULT = new RequestLogConfig(true);
}
