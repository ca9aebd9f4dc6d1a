package dev.keypool.camel.pipeline;

import java.util.LinkedHashMap;
import java.util.Map;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.keypool.config.ChannelConfig;
import dev.keypool.gateway.Channel;
import dev.keypool.gateway.Channels;
import dev.keypool.routing.ModelGroups;
import dev.keypool.tenant.Tenant;
import org.apache.camel.Exchange;

/**
 * GET /v1/models: every model group and every model a channel names (and every modelMap alias), in the OpenAI list
 * format; to a tenant, only those it may use on a channel it may use.
 */
public final class ModelCatalog {

    private final Channels channels;
    private final ObjectMapper mapper;

    private final ModelGroups groups;

    public ModelCatalog(Channels channels, ObjectMapper mapper, ModelGroups groups) {
        this.channels = channels;
        this.groups = groups;
        this.mapper = mapper;
    }

    public void list(Exchange exchange) throws Exception {
        Tenant tenant = exchange.getProperty(Exchanges.TENANT, Tenant.class);
        Map<String, String> owners = new LinkedHashMap<>();
        // a model group is owned by the gateway: its targets may be on several providers
        groups.all().forEach(group -> owners.put(group.name(), "keypool"));
        for (Channel channel : channels.all()) {
            if (tenant != null && !tenant.mayUseChannel(channel.name())) {
                continue;
            }
            channel.config().models().stream().filter(m -> !ChannelConfig.ANY_MODEL.equals(m))
                    .forEach(m -> owners.putIfAbsent(m, channel.name()));
            channel.config().modelMap().keySet().forEach(m -> owners.putIfAbsent(m, channel.name()));
        }
        if (tenant != null) {
            owners.keySet().removeIf(model -> !tenant.mayUseModel(model));
        }
        ObjectNode root = mapper.createObjectNode().put("object", "list");
        ArrayNode data = root.putArray("data");
        owners.forEach((model, owner) -> data.addObject()
                .put("id", model).put("object", "model").put("created", 0).put("owned_by", owner));
        Exchanges.answer(exchange.getMessage(), 200, "application/json", mapper.writeValueAsBytes(root));
    }
}
