package dev.keypool.camel.pipeline;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.keypool.config.Api;
import dev.keypool.gateway.GatewayError;
import dev.keypool.gateway.GatewayRequest;
import dev.keypool.metrics.GatewayMetrics;
import dev.keypool.tenant.Tenant;
import dev.keypool.translate.AnthropicErrors;
import org.apache.camel.Exchange;
import org.apache.camel.Message;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The last step of the gateway: the served answer with the X-KeyPool-* headers, or an error in the shape of its API.
 *
 * @param mapper     writes the error bodies
 * @param clock      the time a Retry-After counts from
 * @param metrics    counts every answered request ({@code keypool_requests_total}) and fallback
 * @param requestLog gets every answered request's row
 */
public record GatewayResponses(ObjectMapper mapper, Clock clock, GatewayMetrics metrics, RequestLog requestLog) {

    private static final Logger LOG = LoggerFactory.getLogger(GatewayResponses.class);
    /** When nothing says when a key or channel comes back (e.g. every key disabled). */
    private static final long DEFAULT_RETRY_AFTER_SECONDS = 60;

    public void finish(Exchange exchange) {
        GatewayRequest request = Exchanges.request(exchange);
        if (!request.isServed()) {
            if (request.heldBackByQuota()) {
                throw GatewayError.quotaExhausted(unavailableMessage(request), retryAfterSeconds(request));
            }
            if (!request.tooExpensive().isEmpty()) {
                throw GatewayError.noAffordableFallback(unavailableMessage(request) + "; skipped as too expensive"
                        + " for the group's maxPriceRatio: " + String.join(", ", request.tooExpensive()),
                        retryAfterSeconds(request));
            }
            throw GatewayError.unavailable(unavailableMessage(request), retryAfterSeconds(request));
        }
        Message message = exchange.getMessage();
        // the provider's status (200, or a client error passed back) and content type; none of its other headers
        Integer status = message.getHeader(Exchange.HTTP_RESPONSE_CODE, Integer.class);
        String contentType = message.getHeader(Exchange.CONTENT_TYPE, String.class);
        String requestId = RequestLog.id(exchange);
        Exchanges.answer(message, status == null ? 200 : status, contentType == null ? "application/json" : contentType,
                message.getBody());
        request.responseHeaders(message::setHeader);
        message.setHeader(RequestLog.HEADER, requestId);
        String outcome = request.isStreamBroken() ? GatewayMetrics.STREAM_BROKEN
                : status != null && status >= 400 ? GatewayMetrics.CLIENT_ERROR : GatewayMetrics.SUCCESS;
        metrics.request(request.servedBy().name(), request.model(), request.tenant(), outcome);
        requestLog.answered(exchange, request, status == null ? 200 : status);
        if (request.level() > 0) {
            String primary = request.primary().name();
            LOG.info("Request fell back {} -> {} (level {}): {}", primary, request.servedBy().name(), request.level(),
                    request.whyNotServed().getOrDefault(primary, "unknown"));
            metrics.fellBack(primary, request.servedBy().name(), request.level());
        }
    }

    /**
     * onException of gateway-errors: every error the gateway produces itself, in the shape of the request's API
     * (kpApi, set first by each entry route): Anthropic's on /v1/messages, OpenAI's everywhere else.
     */
    public void error(Exchange exchange) {
        Throwable cause = exchange.getProperty(Exchange.EXCEPTION_CAUGHT, Throwable.class);
        GatewayError error = cause instanceof GatewayError ge ? ge : internal(cause);
        Message message = exchange.getMessage();
        Api api = Api.named(exchange.getProperty(Exchanges.API, "", String.class)).orElse(null);
        String requestId = RequestLog.id(exchange);
        Exchanges.answer(message, error.status(), "application/json", errorBody(error, api));
        message.setHeader(RequestLog.HEADER, requestId);
        if (error.retryAfterSeconds() != null) {
            message.setHeader("Retry-After", error.retryAfterSeconds());
        }
        GatewayRequest request = exchange.getProperty(Exchanges.REQUEST, GatewayRequest.class);
        if (request != null) {
            message.setHeader(GatewayRequest.ATTEMPTS_HEADER, request.totalAttempts());
        }
        TenantGate.addRateLimitHeaders(exchange);
        if (countsAsRequest(exchange)) {
            metrics.request(request == null ? GatewayMetrics.NONE : request.primary().name(),
                    request == null ? GatewayMetrics.NONE : request.model(),
                    request != null ? request.tenant() : tenantOf(exchange), error.code());
            requestLog.failed(exchange, request, error.status(), error.code());
        }
    }

    /** The tenant of a request refused before it was planned (a tenant limit): known once it authenticated. */
    private static String tenantOf(Exchange exchange) {
        Tenant tenant = exchange.getProperty(Exchanges.TENANT, Tenant.class);
        return tenant == null ? GatewayRequest.NO_TENANT : tenant.name();
    }

    /** Requests to the LLM API count in keypool_requests_total; the admin API's and the demo simulator's do not. */
    private static boolean countsAsRequest(Exchange exchange) {
        String route = exchange.getFromRouteId();
        return route != null && !route.startsWith("admin-") && !route.startsWith("demo-");
    }

    /** The error in the shape of {@code api} (null when not known: OpenAI's). */
    public byte[] errorBody(GatewayError error, Api api) {
        return api != null && api.anthropic() ? anthropicErrorBody(error) : errorBody(error);
    }

    /** {@code {"error":{"message","type","code"}}}, as OpenAI answers errors. */
    public byte[] errorBody(GatewayError error) {
        ObjectNode root = mapper.createObjectNode();
        ObjectNode e = root.putObject("error");
        e.put("message", error.getMessage());
        e.put("type", error.type());
        e.put("code", error.code());
        try {
            return mapper.writeValueAsBytes(root);
        } catch (Exception impossible) {
            throw new IllegalStateException(impossible);
        }
    }

    /**
     * {@code {"type":"error","error":{"type","message"}}}, as Anthropic answers errors: the type follows the status
     * (Anthropic's clients read the status; KeyPool's own code, such as {@code quota_exhausted}, has no field there).
     */
    private byte[] anthropicErrorBody(GatewayError error) {
        ObjectNode root = mapper.createObjectNode().put("type", "error");
        root.putObject("error").put("type", AnthropicErrors.type(error.status())).put("message", error.getMessage());
        try {
            return mapper.writeValueAsBytes(root);
        } catch (Exception impossible) {
            throw new IllegalStateException(impossible);
        }
    }

    private static GatewayError internal(Throwable cause) {
        // the class name only: messages of third-party exceptions are not ours to vouch for
        LOG.warn("Request failed inside the gateway: {}", cause == null ? "unknown" : cause.getClass().getName());
        return new GatewayError(500, "server_error", "internal_error",
                "Internal gateway error (" + (cause == null ? "unknown" : cause.getClass().getSimpleName()) + ")", null);
    }

    private static String unavailableMessage(GatewayRequest request) {
        Map<String, String> why = request.whyNotServed();
        return "No channel could serve model '" + request.model() + "': " + why.entrySet().stream()
                .map(e -> e.getKey() + " " + e.getValue())
                .collect(Collectors.joining(", "));
    }

    /**
     * Seconds until the soonest key recovery, quota room for this request or half-open attempt among the channels
     * of the chain.
     */
    private long retryAfterSeconds(GatewayRequest request) {
        Instant now = clock.instant();
        Optional<Instant> soonest = request.chain().stream()
                .flatMap(c -> Stream.of(c.pool().capacity().soonestRecovery(request.keyScope()), c.breaker().nextAttemptAt(),
                        GatewayRequest.AT_QUOTA.equals(request.whyNotServed().get(c.name()))
                                ? c.pool().capacity().capacityAt(request.keyScope(), request.estimatedTokens())
                                : Optional.<Instant>empty()))
                .flatMap(Optional::stream)
                .min(Instant::compareTo);
        return soonest.map(t -> Math.max(1, (Duration.between(now, t).toMillis() + 999) / 1000))
                .orElse(DEFAULT_RETRY_AFTER_SECONDS);
    }

}
