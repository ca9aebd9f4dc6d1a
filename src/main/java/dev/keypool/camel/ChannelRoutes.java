package dev.keypool.camel;

import dev.keypool.gateway.Channel;
import dev.keypool.gateway.Channels;
import org.apache.camel.builder.RouteBuilder;
import org.apache.camel.model.Model;
import org.apache.camel.model.ModelLifecycleStrategy;
import org.apache.camel.model.RouteDefinition;
import org.apache.camel.model.RouteTemplateDefinition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One route per configured channel, from the routeTemplate {@code keypool-channel} in routes/channel.camel.yaml.
 * The channels come from keypool.yaml, so the instances are made here rather than listed in YAML. prefixId
 * keeps node ids stable: without it Camel prefixes the template's node ids with a counter, and the breaker node
 * would get another name at every start.
 *
 * <p>The instances are made once, at startup. Camel's route reload re-reads an edited channel.camel.yaml but
 * re-creates only the routes listed in the file itself, and this one lists none: the channel routes would go on
 * running the old template without a word. So a reloaded template is reported, and applies at the next start.
 */
public class ChannelRoutes extends RouteBuilder {

    static final String TEMPLATE = "keypool-channel";

    private static final Logger LOG = LoggerFactory.getLogger(ChannelRoutes.class);

    @Override
    public void configure() {
        Channels channels = getContext().getRegistry().lookupByNameAndType("channels", Channels.class);
        for (Channel channel : channels.all()) {
            templatedRoute(TEMPLATE)
                    .routeId("channel-" + channel.name())
                    .prefixId(channel.name() + "-")
                    .parameter("channel", channel.name());
        }
        getContext().getCamelContextExtension().getContextPlugin(Model.class)
                .addModelLifecycleStrategy(new ModelLifecycleStrategy() {
                    @Override
                    public void onAddRouteDefinition(RouteDefinition route) {
                        // routes reload themselves
                    }

                    @Override
                    public void onRemoveRouteDefinition(RouteDefinition route) {
                        // nothing to report
                    }

                    @Override
                    public void onRemoveRouteTemplateDefinition(RouteTemplateDefinition template) {
                        // nothing to report
                    }

                    @Override
                    public void onAddRouteTemplateDefinition(RouteTemplateDefinition template) {
                        if (TEMPLATE.equals(template.getId()) && getContext().isStarted()) {
                            LOG.warn("Route template {} was reloaded, but the channel routes are made from it at startup: "
                                    + "restart KeyPool to apply the change", TEMPLATE);
                        }
                    }
                });
    }
}
