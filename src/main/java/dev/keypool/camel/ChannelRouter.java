package dev.keypool.camel;

import dev.keypool.gateway.Channel;
import dev.keypool.gateway.GatewayRequest;
import org.apache.camel.Exchange;

/**
 * The fallback walk, as the expression of the gateway's dynamicRouter: the primary channel, then its fallback
 * list, skipping channels whose breaker does not admit the request; null ends the walk once a channel served or none is left (a dynamicRouter
 * routes until its expression returns null: https://camel.apache.org/components/4.18.x/eips/dynamicRouter-eip.html).
 */
public final class ChannelRouter {

    public String next(Exchange exchange) {
        GatewayRequest request = Exchanges.request(exchange);
        if (request.isServed() || Exchanges.clientGone(exchange)) {
            return null;
        }
        for (Channel channel = request.advance(); channel != null; channel = request.advance()) {
            // OPEN, or HALF_OPEN with the probes of the period all out (on any instance sharing the breaker)
            if (!channel.breaker().admits()) {
                request.skipCurrent(GatewayRequest.OPEN);
                continue;
            }
            return "direct:channel-" + channel.name();
        }
        return null;
    }
}
