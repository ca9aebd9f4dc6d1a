package dev.keypool.camel;

import dev.keypool.gateway.GatewayRequest;
import dev.keypool.gateway.NoUsableKeyException;
import dev.keypool.pool.ApiKey;
import dev.keypool.pool.KeyPool;
import org.apache.camel.Exchange;

/** Key selection for one upstream attempt, and the retry budget of the channel's error handling. */
public final class KeySelector {

    /** Picks a usable key this request has not tried in the current channel and puts it on the request. */
    public void select(Exchange exchange) {
        GatewayRequest request = Exchanges.request(exchange);
        KeyPool pool = request.current().pool();
        ApiKey key = pool.acquire(request.triedKeys())
                .orElseThrow(() -> new NoUsableKeyException(pool.channel()));
        request.startAttempt(key);
        exchange.getMessage().setHeader("Authorization", key.authorizationHeader());
    }

    /** retryWhile of upstream-errors: attempts left under maxRetries and a key not yet tried. */
    public boolean canRetry(Exchange exchange) {
        GatewayRequest request = Exchanges.request(exchange);
        return request.attemptsInChannel() <= request.current().config().maxRetries()
                && request.current().pool().hasUsableKey(request.triedKeys());
    }
}
