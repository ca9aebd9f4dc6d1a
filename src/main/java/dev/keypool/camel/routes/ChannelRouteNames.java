package dev.keypool.camel.routes;

/**
 * The names Camel knows a channel by, as routes/channel.camel.yaml spells them ({@code direct:channel-{{channel}}},
 * {@code configuration: breaker-{{channel}}}): the one place that builds them, so that the routes made at startup, the
 * routes added by a reload, the fallback walk and the breakers bound in the registry cannot drift apart.
 */
public final class ChannelRouteNames {

    private static final String ROUTE = "channel-";
    private static final String ENDPOINT = "direct:" + ROUTE;
    private static final String BREAKER = "breaker-";

    private ChannelRouteNames() {
    }

    /** The id of the channel's route. */
    public static String routeId(String channel) {
        return ROUTE + channel;
    }

    /** The endpoint the channel's route consumes, where the fallback walk sends a request. */
    public static String endpoint(String channel) {
        return ENDPOINT + channel;
    }

    /** The registry name of the channel's breaker, the configuration of its route's circuitBreaker step. */
    public static String breaker(String channel) {
        return BREAKER + channel;
    }

    /**
     * The prefix of the channel route's node ids: without it Camel prefixes the template's node ids with a counter,
     * and the breaker node would get another name at every start.
     */
    public static String nodePrefix(String channel) {
        return channel + "-";
    }
}
