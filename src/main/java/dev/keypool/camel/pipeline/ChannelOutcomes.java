package dev.keypool.camel.pipeline;

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

/**
 * The steps of a channel route inside its circuitBreaker: prepare the visit, and tell the breaker how it went, once
 * per visit the breaker admitted.
 */
public final class ChannelOutcomes {

    /**
     * First step inside the breaker, once it admitted the visit: where and how long upstream-attempt calls the
     * provider of this channel (set at each visit: a failed visit leaves them, and the next visit's replace them).
     */
    public void enter(Exchange exchange) {
        GatewayRequest request = Exchanges.request(exchange);
        Channel channel = request.current();
        exchange.setProperty(Exchanges.UPSTREAM_URL, channel.upstreamUrl(request.upstreamEndpoint(), request.upstreamModel()));
        exchange.setProperty(Exchanges.TIMEOUT_MS, channel.config().timeout().toMillis());
        exchange.setProperty(Exchanges.CONNECT_TIMEOUT_MS, channel.config().connectTimeout().toMillis());
        Exchanges.transport(exchange, channel.config().provider());
        TenantAdmission pending = TenantGate.pendingAdmission(request);
        if (pending != null && channel.breaker().state() != BreakerState.CLOSED) {
            // decided here, not with the key: a request its tenant refuses gives back the half-open breaker's probe
            // place it holds at once (failed), before it could count as a probe
            TenantGate.decideAlone(pending);
        }
    }

    /**
     * Last step inside the breaker: the channel answered (a client error passed back counts as an answer);
     * a stream that broke after its first byte could not fail over, but the breaker hears of the failure. A request
     * served ends the fallback walk with this round, as {@link ChannelRouter#next} would at the next: one round of
     * the walk's loop, not two.
     */
    public void served(Exchange exchange) {
        GatewayRequest request = Exchanges.request(exchange);
        if (request.isStreamBroken()) {
            request.current().breaker().onFailure(request.lastLatency());
        } else {
            request.current().breaker().onSuccess(request.lastLatency());
        }
        if (request.isServed()) {
            exchange.setProperty(Exchanges.WALK_END, ChannelRouter.SERVED);
            exchange.setProperty(Exchanges.WALK_OVER, true);
        }
    }

    /** onFallback: short-circuited by the breaker, no usable key, or every attempt failed. */
    public void failed(Exchange exchange) {
        GatewayRequest request = Exchanges.request(exchange);
        Channel channel = request.current();
        Throwable cause = exchange.getProperty(ExchangePropertyKey.EXCEPTION_CAUGHT, Throwable.class);
        if (cause instanceof GatewayError refusal) {
            // the tenant's limits refused the request (here or with its first key, KeySelector.select): nothing
            // against the channel, and no other channel either; the request ends with the refusal
            channel.breaker().onNoOutcome();
            throw refusal;
        } else if (Exchanges.clientGone(exchange)) {
            if (cause != null) {
                channel.breaker().onNoOutcome();   // admitted (a rejected visit has no failure): its probe goes back
            }
            request.skipCurrent("client gone");   // nothing against the channel: the client ended it
        } else if (cause == null) {
            // rejected by the breaker itself: OPEN, or HALF_OPEN with all its probes in flight
            request.skipCurrent(GatewayRequest.OPEN);
        } else if (cause instanceof ChannelAtQuotaException) {
            // held back by the gateway's own accounting: nothing wrong with the channel
            channel.breaker().onNoOutcome();
            request.skipCurrent(GatewayRequest.AT_QUOTA);
        } else if ((cause instanceof NoUsableKeyException || request.exhaustedPool())
                && channel.pool().selection().hasUsableKeyOutside(request.keyScope())) {
            // the keys this tenant may use are cooling or disabled, other keys of the channel are fine: the tenant's
            // share is used up, which is a quota matter (wait or 429 quota_exhausted), not the channel's breaker's
            channel.breaker().onNoOutcome();
            request.skipCurrent(GatewayRequest.AT_QUOTA);
        } else if (request.lastFailureSaysNothingOfChannel()) {
            // the gateway failed, or the provider refused the calls unprocessed: nothing against the channel; the walk
            // goes on, as a channel whose steps differ (another format, another provider) may still serve it
            channel.breaker().onNoOutcome();
            request.skipCurrent(request.lastFailure());
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
