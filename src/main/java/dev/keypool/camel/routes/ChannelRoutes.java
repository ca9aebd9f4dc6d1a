package dev.keypool.camel.routes;

import java.util.Set;

import dev.keypool.gateway.Channel;
import dev.keypool.gateway.Channels;
import org.apache.camel.builder.RouteBuilder;

/**
 * One route per configured channel, from the routeTemplate {@code keypool-channel} in routes/channel.camel.yaml.
 * The channels come from keypool.yaml, so the instances are made here rather than listed in YAML, named by
 * {@link ChannelRouteNames}.
 *
 * <p>The instances are made once, at startup: an edited template applies at the next start ({@link TemplateReloads}).
 */
public class ChannelRoutes extends RouteBuilder {

    public static final String TEMPLATE = "keypool-channel";

    @Override
    public void configure() {
        Channels channels = getContext().getRegistry().lookupByNameAndType("channels", Channels.class);
        for (Channel channel : channels.all()) {
            templatedRoute(TEMPLATE)
                    .routeId(ChannelRouteNames.routeId(channel.name()))
                    .prefixId(ChannelRouteNames.nodePrefix(channel.name()))
                    .parameter("channel", channel.name());
        }
        TemplateReloads.report(getContext(), Set.of(TEMPLATE));
    }
}
