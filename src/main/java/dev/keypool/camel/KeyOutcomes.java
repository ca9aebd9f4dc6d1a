package dev.keypool.camel;

import java.io.IOException;
import java.net.ConnectException;
import java.net.SocketTimeoutException;
import java.time.Clock;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;

import dev.keypool.gateway.Channel;
import dev.keypool.gateway.GatewayRequest;
import dev.keypool.pool.ApiKey;
import dev.keypool.pool.RetryAfter;
import org.apache.camel.Exchange;
import org.apache.camel.Processor;
import org.apache.camel.http.base.HttpOperationFailedException;

/**
 * What a failed upstream attempt does to its key: the onExceptionOccurred processors of upstream-errors
 * (coolKey, disableKey, countKeyFailure, releaseKey). Each records the attempt once, before the retry decision.
 */
public final class KeyOutcomes {

    private final Clock clock;

    public KeyOutcomes(Clock clock) {
        this.clock = clock;
    }

    /** 429: cool the key for Retry-After, or the channel's cooldown. */
    public Processor coolKey() {
        return exchange -> withAttempt(exchange, (request, key) -> {
            HttpOperationFailedException e = exchange.getException(HttpOperationFailedException.class);
            Optional<Duration> retryAfter = RetryAfter.parse(header(e.getResponseHeaders(), "Retry-After"), clock);
            request.current().pool().recordRateLimited(key, request.lastLatency(), retryAfter);
            request.keyRefused("429");
        });
    }

    /** 401/402/403: the key is refused by the provider; disable it now. */
    public Processor disableKey() {
        return exchange -> withAttempt(exchange, (request, key) -> {
            int status = exchange.getException(HttpOperationFailedException.class).getStatusCode();
            request.current().pool().recordRejected(key, request.lastLatency(), status);
            request.keyRefused(String.valueOf(status));
        });
    }

    /** 5xx, 408, timeouts and connection errors: a failure of the key, and maybe of the channel. */
    public Processor countKeyFailure() {
        return exchange -> withAttempt(exchange, (request, key) -> {
            if (Exchanges.clientGone(exchange)) {
                // the socket was closed because the client hung up (Admission): not the key's fault
                request.current().pool().recordClientError(key, request.lastLatency());
                return;
            }
            String cause = cause(exchange.getException());
            Channel channel = request.current();
            channel.pool().recordFailure(key, request.lastLatency(), cause);
            channel.breaker().onKeyFailure(key.fingerprint(), key.stats().consecutiveFailures());
            request.attemptFailed(cause);
        });
    }

    /** Other 4xx: the request was wrong, not the key; just free it. */
    public Processor releaseKey() {
        return exchange -> withAttempt(exchange, (request, key) -> {
            request.current().pool().recordClientError(key, request.lastLatency());
            request.served(key);
        });
    }

    private interface AttemptOutcome {
        void record(GatewayRequest request, ApiKey key);
    }

    private static void withAttempt(Exchange exchange, AttemptOutcome outcome) {
        GatewayRequest request = exchange.getProperty(Exchanges.REQUEST, GatewayRequest.class);
        ApiKey key = request == null ? null : request.finishAttempt();
        if (key != null) {
            outcome.record(request, key);
        }
    }

    static String cause(Throwable e) {
        if (e instanceof HttpOperationFailedException http) {
            return String.valueOf(http.getStatusCode());
        }
        if (e instanceof SocketTimeoutException) {
            return "timeout";
        }
        if (e instanceof ConnectException) {
            return "connection refused";
        }
        if (e instanceof IOException) {
            return "connection error (" + e.getClass().getSimpleName() + ")";
        }
        return e == null ? "unknown" : e.getClass().getSimpleName();
    }

    static String header(Map<String, String> headers, String name) {
        if (headers == null) {
            return null;
        }
        for (Map.Entry<String, String> h : headers.entrySet()) {
            if (name.equalsIgnoreCase(h.getKey())) {
                return h.getValue();
            }
        }
        return null;
    }
}
