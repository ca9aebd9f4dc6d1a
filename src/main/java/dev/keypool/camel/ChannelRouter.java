package dev.keypool.camel;

import dev.keypool.gateway.Channel;
import dev.keypool.gateway.GatewayRequest;
import org.apache.camel.Exchange;

/**
 * The fallback walk's next step (route fallback-walk): the primary channel, then its fallback list. Each channel's
 * route decides with its breaker whether the request visits the provider (its circuitBreaker step); a channel that
 * turns it away sends it back here for the next.
 */
public final class ChannelRouter {

    /** Sets kpNextChannel to the route of the next channel to try; removes it once a channel served or none is left. */
    public void next(Exchange exchange) {
        String route = nextRoute(exchange);
        if (route == null) {
            exchange.removeProperty(Exchanges.NEXT_CHANNEL);
        } else {
            exchange.setProperty(Exchanges.NEXT_CHANNEL, route);
        }
    }

    private static String nextRoute(Exchange exchange) {
        GatewayRequest request = Exchanges.request(exchange);
        if (request.isServed() || Exchanges.clientGone(exchange)) {
            return null;
        }
        Channel channel = request.advance();
        return channel == null ? null : "direct:channel-" + channel.name();
    }
}
