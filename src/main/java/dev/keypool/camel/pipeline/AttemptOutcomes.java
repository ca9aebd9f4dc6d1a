package dev.keypool.camel.pipeline;

import java.io.IOException;
import java.net.ConnectException;
import java.net.SocketTimeoutException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BiConsumer;

import dev.keypool.gateway.AnswerTooLarge;
import dev.keypool.gateway.Attempt;
import dev.keypool.gateway.GatewayRequest;
import dev.keypool.pool.RetryAfter;
import org.apache.camel.Exchange;
import org.apache.camel.Processor;
import org.apache.camel.http.base.HttpOperationFailedException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The onExceptionOccurred processors of upstream-errors: each ends the failed attempt with its outcome
 * ({@link Attempt}), before the error handler decides about a retry.
 */
public final class AttemptOutcomes {

    /** How often one kind of gateway error is logged: a fault on every request must not flood the log. */
    static final Duration GATEWAY_ERROR_LOGGED_EVERY = Duration.ofMinutes(1);

    private static final Logger LOG = LoggerFactory.getLogger(AttemptOutcomes.class);

    private final Clock clock;
    /** When each kind of gateway error was last logged. */
    private final Map<Class<?>, Instant> gatewayErrorLogged = new ConcurrentHashMap<>();

    public AttemptOutcomes(Clock clock) {
        this.clock = clock;
    }

    /** 429: the key cools for Retry-After, or the channel's cooldown. */
    public Processor rateLimited() {
        return onAttempt((exchange, attempt) -> {
            HttpOperationFailedException e = exchange.getException(HttpOperationFailedException.class);
            attempt.rateLimited(RetryAfter.parse(header(e.getResponseHeaders(), "Retry-After"), clock));
        });
    }

    /** 401/402/403: the provider refuses the key; it is disabled. */
    public Processor keyRejected() {
        return onAttempt((exchange, attempt) ->
                attempt.rejected(exchange.getException(HttpOperationFailedException.class).getStatusCode()));
    }

    /** 5xx, 408, timeouts and connection errors: a failure of the key, and maybe of the channel. */
    public Processor upstreamFailed() {
        return unlessClientGone((exchange, attempt) -> attempt.failed(cause(exchange.getException())));
    }

    /** A refused HTTP/2 stream: the provider did not process the call; nothing counts against the key or channel. */
    public Processor refused() {
        return unlessClientGone((exchange, attempt) -> attempt.refused());
    }

    /**
     * Anything else that failed after the key was picked: the gateway's own failure (a bug, or an operator's route step
     * that throws), not the provider's. Counting it against the key and the channel would disable good keys and open
     * breakers for something no provider did.
     */
    public Processor gatewayFailed() {
        return unlessClientGone((exchange, attempt) -> {
            if (attempt.gatewayFailed(cause(exchange.getException()))) {
                logGatewayError(exchange);
            }
        });
    }

    /**
     * The client sees only the exception's name and nothing else in the gateway reports it, so the operator needs
     * its stack here: once per kind of error and {@link #GATEWAY_ERROR_LOGGED_EVERY}.
     */
    private void logGatewayError(Exchange exchange) {
        Throwable e = exchange.getException();
        if (e == null) {
            return;
        }
        Instant now = clock.instant();
        Instant last = gatewayErrorLogged.get(e.getClass());
        if (last != null && now.isBefore(last.plus(GATEWAY_ERROR_LOGGED_EVERY))
                || !(last == null ? gatewayErrorLogged.putIfAbsent(e.getClass(), now) == null
                        : gatewayErrorLogged.replace(e.getClass(), last, now))) {
            return;   // logged lately, or by another request just now
        }
        LOG.warn("Gateway error after a key was picked, in route {}: the request walks on and neither the key nor the "
                + "channel is blamed; the same error is logged at most once every {}",
                exchange.getProperty(Exchange.FAILURE_ROUTE_ID), GATEWAY_ERROR_LOGGED_EVERY, e);
    }

    /** {@code failure}, unless the client hung up. */
    private static Processor unlessClientGone(BiConsumer<Exchange, Attempt> failure) {
        return onAttempt((exchange, attempt) -> {
            if (Exchanges.clientGone(exchange)) {
                // the provider socket was closed because the client hung up (Admission): nobody's fault
                attempt.clientGone();
            } else {
                failure.accept(exchange, attempt);
            }
        });
    }

    /** Other 4xx: the request was wrong, not the key; the provider's answer goes back to the client. */
    public Processor clientError() {
        return onAttempt((exchange, attempt) -> attempt.clientError());
    }

    private static Processor onAttempt(BiConsumer<Exchange, Attempt> outcome) {
        return exchange -> {
            GatewayRequest request = exchange.getProperty(Exchanges.REQUEST, GatewayRequest.class);
            Attempt attempt = request == null ? null : request.attempt();
            // none when the failure came before a key was picked (e.g. a retry into a channel that tripped)
            if (attempt != null) {
                outcome.accept(exchange, attempt);
            }
        };
    }

    public static String cause(Throwable e) {
        if (e instanceof HttpOperationFailedException http) {
            return String.valueOf(http.getStatusCode());
        }
        if (e instanceof SocketTimeoutException) {
            return "timeout";
        }
        if (e instanceof ConnectException) {
            return "connection refused";
        }
        if (e instanceof AnswerTooLarge) {
            return e.getMessage();
        }
        if (e instanceof IOException) {
            return "connection error (" + e.getClass().getSimpleName() + ")";
        }
        return e == null ? "unknown" : e.getClass().getSimpleName();
    }

    public static String header(Map<String, String> headers, String name) {
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
