package dev.keypool.camel;

import java.util.LinkedHashMap;
import java.util.Map;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.keypool.config.ChannelConfig;
import dev.keypool.gateway.Channel;
import dev.keypool.gateway.Channels;
import org.apache.camel.Exchange;

/** GET /v1/models: every model a channel names (and every modelMap alias), in the OpenAI list format. */
public final class ModelCatalog {

    private final Channels channels;
    private final ObjectMapper mapper;

    public ModelCatalog(Channels channels, ObjectMapper mapper) {
        this.channels = channels;
        this.mapper = mapper;
    }

    public void list(Exchange exchange) throws Exception {
        Map<String, String> owners = new LinkedHashMap<>();
        for (Channel channel : channels.all()) {
            channel.config().models().stream().filter(m -> !ChannelConfig.ANY_MODEL.equals(m))
                    .forEach(m -> owners.putIfAbsent(m, channel.name()));
            channel.config().modelMap().keySet().forEach(m -> owners.putIfAbsent(m, channel.name()));
        }
        ObjectNode root = mapper.createObjectNode().put("object", "list");
        ArrayNode data = root.putArray("data");
        owners.forEach((model, owner) -> data.addObject()
                .put("id", model).put("object", "model").put("created", 0).put("owned_by", owner));
        Exchanges.answer(exchange.getMessage(), 200, "application/json", mapper.writeValueAsBytes(root));
    }
}
