package dev.keypool.camel;

import dev.keypool.gateway.Channel;
import dev.keypool.gateway.GatewayRequest;
import org.apache.camel.Exchange;

/**
 * The fallback walk's next step (route fallback-walk): the primary channel, then its fallback list, skipping
 * channels whose breaker does not admit the request; or why there is none, which the walk's loop ends on.
 */
public final class ChannelRouter {

    /** A channel served the request: the walk ends. */
    static final String SERVED = "served";
    /** The client hung up: the walk ends, blaming no key or channel. */
    static final String CLIENT_GONE = "clientGone";
    /** Every channel of the chain was tried or skipped: the request may wait for quota room, then walk it again. */
    static final String CHAIN_DONE = "chainDone";

    /**
     * Sets kpNextChannel to the route of the next channel to try; or, when there is none, removes it and sets
     * kpWalkEnd to why.
     */
    public void next(Exchange exchange) {
        GatewayRequest request = Exchanges.request(exchange);
        String end = request.isServed() ? SERVED : Exchanges.clientGone(exchange) ? CLIENT_GONE : null;
        String route = end == null ? nextRoute(request) : null;
        if (route != null) {
            exchange.setProperty(Exchanges.NEXT_CHANNEL, route);
            exchange.removeProperty(Exchanges.WALK_END);
        } else {
            exchange.removeProperty(Exchanges.NEXT_CHANNEL);
            exchange.setProperty(Exchanges.WALK_END, end == null ? CHAIN_DONE : end);
        }
    }

    private static String nextRoute(GatewayRequest request) {
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
