package dev.keypool.camel;

import dev.keypool.gateway.Channel;
import dev.keypool.gateway.GatewayRequest;
import org.apache.camel.Exchange;

/**
 * The fallback walk's next step (route fallback-walk): the primary channel, then its fallback list, skipping
 * channels whose breaker does not admit the request.
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
