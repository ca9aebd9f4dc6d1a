package dev.keypool.camel.pipeline;

import java.io.IOException;
import java.net.ConnectException;
import java.net.SocketTimeoutException;
import java.time.Clock;
import java.util.Map;
import java.util.function.BiConsumer;

import dev.keypool.gateway.AnswerTooLarge;
import dev.keypool.gateway.Attempt;
import dev.keypool.gateway.GatewayRequest;
import dev.keypool.pool.RetryAfter;
import org.apache.camel.Exchange;
import org.apache.camel.Processor;
import org.apache.camel.http.base.HttpOperationFailedException;

/**
 * The onExceptionOccurred processors of upstream-errors: each ends the failed attempt with its outcome
 * ({@link Attempt}), before the error handler decides about a retry.
 */
public final class AttemptOutcomes {

    private final Clock clock;

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
        return unlessClientGone(Attempt::failed);
    }

    /**
     * Anything else that failed after the key was picked: the gateway's own failure (a bug, or an operator's route step
     * that throws), not the provider's. Counting it against the key and the channel would disable good keys and open
     * breakers for something no provider did.
     */
    public Processor gatewayFailed() {
        return unlessClientGone(Attempt::gatewayFailed);
    }

    /** {@code failure} with the exception's cause, unless the client hung up. */
    private static Processor unlessClientGone(BiConsumer<Attempt, String> failure) {
        return onAttempt((exchange, attempt) -> {
            if (Exchanges.clientGone(exchange)) {
                // the provider socket was closed because the client hung up (Admission): nobody's fault
                attempt.clientGone();
            } else {
                failure.accept(attempt, cause(exchange.getException()));
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
