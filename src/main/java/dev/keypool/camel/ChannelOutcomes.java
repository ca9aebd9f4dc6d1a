package dev.keypool.camel;

import dev.keypool.breaker.BreakerState;
import dev.keypool.breaker.BreakerTrigger;
import dev.keypool.gateway.Channel;
import dev.keypool.gateway.ChannelAtQuotaException;
import dev.keypool.gateway.GatewayError;
import dev.keypool.gateway.GatewayRequest;
import dev.keypool.gateway.NoUsableKeyException;
import dev.keypool.tenant.TenantAdmission;
import org.apache.camel.Exchange;
import org.apache.camel.ExchangePropertyKey;

/** The steps of a channel route around its circuitBreaker: prepare the visit, and tell the breaker how it went. */
public final class ChannelOutcomes {

    /**
     * Before the breaker, because properties set inside it would be lost when it fails (it runs its body on a
     * copy of the exchange): where and how long upstream-attempt calls the provider of this channel.
     */
    public void enter(Exchange exchange) {
        GatewayRequest request = Exchanges.request(exchange);
        Channel channel = request.current();
        exchange.setProperty(Exchanges.UPSTREAM_URL, channel.upstreamUrl(request.endpoint()));
        exchange.setProperty(Exchanges.TIMEOUT_MS, channel.config().timeout().toMillis());
        exchange.setProperty(Exchanges.CONNECT_TIMEOUT_MS, channel.config().connectTimeout().toMillis());
        TenantAdmission pending = KeySelector.pendingAdmission(request);
        if (pending != null && channel.breaker().state() != BreakerState.CLOSED) {
            // decided here, not with the key: a request its tenant refuses must not take one of a half-open
            // breaker's few probe places
            TenantGate.decideAlone(pending);
        }
    }

    /**
     * Last step inside the breaker: the channel answered (a client error passed back counts as an answer);
     * a stream that broke after its first byte could not fail over, but the breaker hears of the failure.
     */
    public void served(Exchange exchange) {
        GatewayRequest request = Exchanges.request(exchange);
        if (request.isStreamBroken()) {
            request.current().breaker().onFailure(request.lastLatency());
        } else {
            request.current().breaker().onSuccess(request.lastLatency());
        }
    }

    /** onFallback: short-circuited by the breaker, no usable key, or every attempt failed. */
    public void failed(Exchange exchange) {
        GatewayRequest request = Exchanges.request(exchange);
        Channel channel = request.current();
        Throwable cause = exchange.getProperty(ExchangePropertyKey.EXCEPTION_CAUGHT, Throwable.class);
        if (cause instanceof GatewayError refusal) {
            // the tenant's limits refused the request with its first key (KeySelector.select): nothing against the
            // channel, and no other channel either; the request ends with the refusal
            throw refusal;
        } else if (Exchanges.clientGone(exchange)) {
            request.skipCurrent("client gone");   // nothing against the channel: the client ended it
        } else if (cause == null) {
            // rejected by the breaker itself: OPEN, or HALF_OPEN with all its probes in flight
            request.skipCurrent(GatewayRequest.OPEN);
        } else if (cause instanceof ChannelAtQuotaException) {
            // held back by the gateway's own accounting: nothing wrong with the channel
            request.skipCurrent(GatewayRequest.AT_QUOTA);
        } else if ((cause instanceof NoUsableKeyException || request.exhaustedPool())
                && channel.pool().hasUsableKeyOutside(request.keyScope())) {
            // the keys this tenant may use are cooling or disabled, other keys of the channel are fine: the tenant's
            // share is used up, which is a quota matter (wait or 429 quota_exhausted), not the channel's breaker's
            request.skipCurrent(GatewayRequest.AT_QUOTA);
        } else if (cause instanceof NoUsableKeyException || request.exhaustedPool()) {
            channel.breaker().onPoolExhausted();
            request.skipCurrent(BreakerTrigger.POOL_EXHAUSTED.configName());
        } else {
            channel.breaker().onFailure(request.lastLatency());
            String last = request.lastFailure();
            request.skipCurrent(GatewayRequest.FAILED + (last == null ? "" : " (last: " + last + ")"));
        }
    }
}
