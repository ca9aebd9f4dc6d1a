package dev.keypool.camel.pipeline;

import java.util.Optional;

import dev.keypool.auth.ProviderAuth;
import dev.keypool.breaker.BreakerState;
import dev.keypool.gateway.Channel;
import dev.keypool.gateway.ChannelAtQuotaException;
import dev.keypool.gateway.ChannelOpenedException;
import dev.keypool.gateway.GatewayRequest;
import dev.keypool.gateway.NoUsableKeyException;
import dev.keypool.pool.KeyPool;
import dev.keypool.quota.CapacityQueue;
import dev.keypool.tenant.TenantAdmission;
import dev.keypool.tenant.TenantCharge;
import org.apache.camel.Exchange;

/** Key selection for one upstream attempt, and the retry budget of the channel's error handling. */
public final class KeySelector {

    private final CapacityQueue waitingLine;

    /** @param waitingLine told when a request that waited for room has its key, so that the next may go */
    public KeySelector(CapacityQueue waitingLine) {
        this.waitingLine = waitingLine;
    }

    /**
     * Picks a usable key with quota room that this request has not tried in the current channel — its tenant's own
     * keys first, then the shared ones if it may borrow — reserves the
     * call's quota on it and puts it, with the body for this channel, on the message. A retry
     * whose channel tripped while it waited out its backoff does not go out: the request moves on instead.
     */
    public void select(Exchange exchange) {
        GatewayRequest request = Exchanges.request(exchange);
        if (request.attemptsInChannel() > 0 && request.current().breaker().state() == BreakerState.OPEN) {
            throw new ChannelOpenedException(request.current().name());
        }
        KeyPool pool = request.current().pool();
        // a tenant's admission by limits shared with other instances goes to Redis with the key's reservation: one
        // call for both (design §11)
        TenantAdmission pending = pendingAdmission(request);
        // a batch line only below the keys' soft limits: the rest stays for interactive requests (design §12)
        Optional<KeyPool.Lease> acquired = request.isBatch()
                ? pool.acquireBelowSoftLimit(request.keyScope(), request.triedKeys(), request::estimatedTokens, pending)
                : pool.acquire(request.keyScope(), request.triedKeys(), request::estimatedTokens, pending);
        if (pending != null) {
            // the tenant's limits come first: decided with the key, or now when no key's reservation carried them
            TenantGate.decideAlone(pending);
        }
        KeyPool.Lease lease = acquired
                .orElseThrow(() -> pool.hasUsableKey(request.keyScope(), request.triedKeys())
                        ? new ChannelAtQuotaException(pool.channel()) : new NoUsableKeyException(pool.channel()));
        request.startAttempt(lease);
        waitingLine.dispatched(request);
        // Authorization: Bearer <key>, or x-api-key: <key> (auth: x-api-key in keypool.yaml)
        ProviderAuth auth = request.current().config().auth();
        exchange.getMessage().setHeader(auth.headerName(), lease.key().credential(auth));
        // every attempt sends the request anew: a failed one may have left the provider's answer in the body
        exchange.getMessage().setBody(request.upstreamBody());
    }

    /** The request's tenant admission while it waits to be decided with a key (design §11); null when decided or none. */
    static TenantAdmission pendingAdmission(GatewayRequest request) {
        return request.charge().map(TenantCharge::admission).filter(admission -> !admission.decided()).orElse(null);
    }

    /**
     * retryWhile of upstream-errors: whether to try another key of this channel — attempts left under maxRetries,
     * a key not yet tried, and a breaker that has not opened meanwhile (then the request moves on to the fallback
     * instead of adding load).
     */
    public boolean mayTryAnotherKey(Exchange exchange) {
        GatewayRequest request = Exchanges.request(exchange);
        Channel channel = request.current();
        return !Exchanges.clientGone(exchange)
                && request.attemptsInChannel() <= channel.config().maxRetries()
                && channel.pool().hasUsableKey(request.keyScope(), request.triedKeys())
                && channel.breaker().state() != BreakerState.OPEN;
    }
}
