package dev.keypool.camel;

import java.util.concurrent.ThreadLocalRandom;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.keypool.camel.admin.ModelGroupAdmin;
import dev.keypool.config.GatewayConfig;
import dev.keypool.gateway.Channels;
import dev.keypool.gateway.GroupRouting;
import dev.keypool.routing.ModelGroup;
import dev.keypool.routing.ModelGroups;
import dev.keypool.routing.TargetOrder;
import org.apache.camel.CamelContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** The model groups of keypool.yaml (design §16) and the planning of a group's walk. */
record RoutingBeans(ModelGroups groups, GroupRouting routing) {

    private static final Logger LOG = LoggerFactory.getLogger(RoutingBeans.class);

    static RoutingBeans bind(CamelContext context, GatewayConfig config, Channels channels) {
        ModelGroups groups = new ModelGroups(config.modelGroups());
        for (ModelGroup group : config.modelGroups()) {
            if (channels.configured(group.name())) {
                LOG.warn("Model group [{}] has the name of a channel's model: requests for it go to the group",
                        group.name());
            }
            LOG.info("Model group [{}]: balance {}, sticky {}, targets {}", group.name(), group.balance().configName(),
                    group.sticky().configName(), group.targets());
        }
        context.getRegistry().bind("modelGroups", groups);
        context.getRegistry().bind("modelGroupAdmin", new ModelGroupAdmin(groups, new ObjectMapper()));
        return new RoutingBeans(groups,
                new GroupRouting(channels, new TargetOrder(() -> ThreadLocalRandom.current().nextDouble())));
    }
}
