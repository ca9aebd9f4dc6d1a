package dev.keypool.camel.pipeline;

import dev.keypool.camel.routes.ChannelRouteNames;
import dev.keypool.gateway.Channel;
import dev.keypool.gateway.GatewayRequest;
import dev.keypool.routing.ModelSwitches;
import org.apache.camel.Exchange;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The fallback walk's next step (route fallback-walk): the primary channel, then its fallback list; or why there is
 * none, which the walk's loop ends on. Each channel's route decides with its breaker whether the request visits the
 * provider (its circuitBreaker step); a channel that turns it away sends it back here for the next.
 */
public final class ChannelRouter {

    /** A channel served the request: the walk ends. */
    static final String SERVED = "served";
    /** The client hung up: the walk ends, blaming no key or channel. */
    static final String CLIENT_GONE = "clientGone";
    /** Every channel of the chain was tried or skipped: the request may wait for quota room, then walk it again. */
    static final String CHAIN_DONE = "chainDone";

    private static final Logger LOG = LoggerFactory.getLogger(ChannelRouter.class);

    private final ModelSwitches switches;

    /** @param switches when a walk that moves on to another model is logged */
    public ChannelRouter(ModelSwitches switches) {
        this.switches = switches;
    }

    /**
     * Sets kpNextChannel to the route of the next channel to try; or, when there is none, removes it and sets
     * kpWalkEnd to why, and kpWalkOver when the walk ends with it (served, or the client gone).
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
            if (end != null) {
                exchange.setProperty(Exchanges.WALK_OVER, true);
            }
        }
    }

    private String nextRoute(GatewayRequest request) {
        Channel channel = request.advance();
        if (channel == null) {
            return null;
        }
        if (request.level() > 0) {
            String from = request.firstUpstreamModel();
            String to = request.upstreamModel();
            if (!from.equals(to) && switches.shouldLog(from, to)) {
                LOG.info("Request for model '{}' walked on from model {} ({}) to model {} ({}); logged once a minute"
                        + " for this pair", request.model(), from, request.primary().name(), to, channel.name());
            }
        }
        return ChannelRouteNames.endpoint(channel.name());
    }
}
