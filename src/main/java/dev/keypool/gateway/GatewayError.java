package dev.keypool.gateway;

import dev.keypool.breaker.NeutralFailure;
import dev.keypool.config.Api;

/**
 * An error the gateway itself answers, OpenAI-shaped: {@code {"error":{"message","type","code"}}}.
 * Messages are written by us and never carry a key or a client token.
 */
public final class GatewayError extends RuntimeException implements NeutralFailure {

    private final int status;
    private final String type;
    private final String code;
    private final Long retryAfterSeconds;

    public GatewayError(int status, String type, String code, String message, Long retryAfterSeconds) {
        super(message, null, false, false);
        this.status = status;
        this.type = type;
        this.code = code;
        this.retryAfterSeconds = retryAfterSeconds;
    }

    public static GatewayError badRequest(String code, String message) {
        return new GatewayError(400, "invalid_request_error", code, message, null);
    }

    public static GatewayError modelNotFound(String model, Api api) {
        return new GatewayError(404, "invalid_request_error", "model_not_found",
                "The model '" + model + "' is not served by any channel of this gateway"
                        + (api == Api.CHAT ? "" : " for the " + api.configName() + " API"), null);
    }

    public static GatewayError tooLarge(long size, long limit) {
        return new GatewayError(413, "invalid_request_error", "request_too_large",
                "Request body of " + size + " bytes is over the limit of " + limit + " bytes", null);
    }

    public static GatewayError unavailable(String message, long retryAfterSeconds) {
        return new GatewayError(503, "service_unavailable_error", "no_channel_available", message, retryAfterSeconds);
    }

    /** design §16: the targets a model group's cost guard allowed could not serve; the costlier ones were skipped. */
    public static GatewayError noAffordableFallback(String message, long retryAfterSeconds) {
        return new GatewayError(503, "service_unavailable_error", "no_affordable_fallback", message, retryAfterSeconds);
    }

    /** design §4: the keys of the chain have no quota room for the request, and none comes within queue.maxWait. */
    public static GatewayError quotaExhausted(String message, long retryAfterSeconds) {
        return new GatewayError(429, "rate_limit_error", "quota_exhausted", message, retryAfterSeconds);
    }

    /** More requests in flight than keypool.max-in-flight: refused at once, the client may retry in a second. */
    public static GatewayError overloaded(int maxInFlight) {
        return new GatewayError(503, "service_unavailable_error", "overloaded",
                "The gateway is holding its maximum of " + maxInFlight + " requests; retry shortly", 1L);
    }

    /** design §7: tenants are configured and the request carries no token of one (OpenAI's answer to a bad key). */
    public static GatewayError invalidApiKey() {
        return new GatewayError(401, "invalid_request_error", "invalid_api_key",
                "Missing or unknown API key: send a tenant token as 'Authorization: Bearer <token>'", null);
    }

    /** design §7: the tenant may not use this model, or none of the channels serving it. */
    public static GatewayError modelNotAllowed(String message) {
        return new GatewayError(403, "invalid_request_error", "model_not_allowed", message, null);
    }

    /** design §7: over one of the tenant's own limits ({@code code} tenant_rate_limited or budget_exceeded). */
    public static GatewayError tenantLimited(String code, String message, long retryAfterSeconds) {
        return new GatewayError(429, "rate_limit_error", code, message, retryAfterSeconds);
    }

    /** design §12: the tenant has batch.max-queued-tasks async tasks waiting or running; refused before it is kept. */
    public static GatewayError tooManyTasks(long maxQueued) {
        return new GatewayError(429, "rate_limit_error", "too_many_tasks", "This tenant already has its maximum of "
                + maxQueued + " async tasks queued or running; retry once some are done", null);
    }

    /** design §12: the tenant's tasks and files take batch.max-stored-bytes; refused before anything is kept. */
    public static GatewayError storageExhausted(long maxBytes) {
        return new GatewayError(429, "rate_limit_error", "storage_exhausted", "This tenant's tasks and files take its "
                + "maximum of " + maxBytes + " bytes of storage; delete files or wait for tasks to expire", null);
    }

    /** The request bodies held at once would pass keypool.max-body-bytes-in-flight: refused before its body is read. */
    public static GatewayError bodiesOverloaded(long maxBytes) {
        return new GatewayError(503, "service_unavailable_error", "overloaded",
                "The gateway is holding its maximum of " + maxBytes + " bytes of request bodies; retry shortly", 1L);
    }

    /** Uploads being spooled or sent from disk already fill keypool.max-upload-bytes-on-disk. */
    public static GatewayError uploadsOverloaded(long maxBytes) {
        return new GatewayError(503, "service_unavailable_error", "overloaded",
                "The gateway is holding its maximum of " + maxBytes + " bytes of uploads; retry shortly", 1L);
    }

    /** The client did not send its whole body within keypool.request-read-timeout-ms. */
    public static GatewayError bodyTimeout(long timeoutMs) {
        return new GatewayError(408, "invalid_request_error", "request_timeout",
                "The request body did not arrive within " + timeoutMs + " ms", null);
    }

    /** A multipart boundary longer than RFC 2046 allows (70 characters). */
    public static GatewayError boundaryTooLong(int length) {
        return badRequest("invalid_content_type",
                "The multipart boundary is " + length + " characters long; at most 70 are allowed (RFC 2046)");
    }

    public int status() {
        return status;
    }

    public String type() {
        return type;
    }

    public String code() {
        return code;
    }

    public Long retryAfterSeconds() {
        return retryAfterSeconds;
    }
}
