package dev.keypool.camel.admin;

import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.keypool.camel.pipeline.Exchanges;
import dev.keypool.gateway.GatewayError;
import dev.keypool.routing.ModelGroup;
import dev.keypool.routing.ModelGroups;
import dev.keypool.routing.Target;
import org.apache.camel.Exchange;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * PATCH /admin/model-groups/{name} (routes/admin.camel.yaml): new weights for a group's targets, live for the next
 * request (design §16). The body names targets as {@code channel} or {@code channel/model}:
 * {@code {"weights": {"deepseek": 8, "dashscope/qwen-plus": 2}}}. Until the next restart or reload of the file.
 */
public final class ModelGroupAdmin {

    private static final Logger LOG = LoggerFactory.getLogger(ModelGroupAdmin.class);

    private final ModelGroups groups;
    private final ObjectMapper mapper;

    public ModelGroupAdmin(ModelGroups groups, ObjectMapper mapper) {
        this.groups = groups;
        this.mapper = mapper;
    }

    public void patchWeights(Exchange exchange) throws IOException {
        String name = exchange.getMessage().getHeader("name", String.class);
        ModelGroup group = groups.get(name == null ? "" : name);
        if (group == null) {
            throw new GatewayError(404, "invalid_request_error", "model_group_not_found",
                    "No model group '" + name + "' in the configuration", null);
        }
        Map<String, Integer> weights = weights(exchange, group);
        ModelGroup changed = groups.changeWeights(group.name(), weights).orElseThrow();
        LOG.info("Model group [{}] weights changed by operator: {}", changed.name(), weights);
        ObjectNode answer = mapper.createObjectNode().put("name", changed.name());
        for (Target t : changed.targets()) {
            answer.withArray("targets").addObject().put("channel", t.channel()).put("model", t.model())
                    .put("weight", t.weight()).put("tier", t.tier());
        }
        Exchanges.answer(exchange.getMessage(), 200, "application/json", mapper.writeValueAsBytes(answer));
    }

    /** The {@code weights} object, every name a target of the group and every weight an integer >= 0; else 400. */
    private Map<String, Integer> weights(Exchange exchange, ModelGroup group) {
        byte[] body = exchange.getMessage().getBody(byte[].class);
        JsonNode json;
        try {
            json = body == null || body.length == 0 ? null : mapper.readTree(body);
        } catch (IOException e) {
            throw GatewayError.badRequest("invalid_json", "Request body is not valid JSON");
        }
        JsonNode weights = json == null ? null : json.get("weights");
        if (weights == null || !weights.isObject() || weights.isEmpty()) {
            throw GatewayError.badRequest("invalid_change",
                    "expected {\"weights\": {\"<channel> or <channel>/<model>\": <weight>, ...}}");
        }
        Map<String, Integer> read = new LinkedHashMap<>();
        List<String> problems = new ArrayList<>();
        weights.fields().forEachRemaining(e -> {
            if (!group.names(e.getKey())) {
                problems.add("'" + e.getKey() + "' is no target of model group '" + group.name() + "'");
            } else if (!e.getValue().canConvertToInt() || !e.getValue().isIntegralNumber() || e.getValue().asInt() < 0) {
                problems.add("weights." + e.getKey() + " must be an integer >= 0");
            } else {
                read.put(e.getKey(), e.getValue().asInt());
            }
        });
        if (!problems.isEmpty()) {
            throw GatewayError.badRequest("invalid_change", String.join("; ", problems));
        }
        return read;
    }
}
