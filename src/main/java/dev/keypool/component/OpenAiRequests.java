package dev.keypool.component;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Map;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * The OpenAI request JSON the keypool component sends into the pipeline, from the body a host route gives it: the
 * request itself (JSON text or bytes, or a {@code Map}), or plain text, which becomes the one user message of a chat
 * request or the input of an embeddings request. The endpoint's {@code model} option, when set, is the model asked
 * for. Whatever is wrong with a request (not JSON, no model …) is left for the pipeline to answer with its own 400.
 */
final class OpenAiRequests {

    private final ObjectMapper mapper;

    OpenAiRequests(ObjectMapper mapper) {
        this.mapper = mapper;
    }

    /** @param operation {@code chat} or {@code embeddings}; @param model the endpoint's model, or null */
    byte[] toJson(Object body, String operation, String model) {
        if (body instanceof Map<?, ?> map) {
            return withModel(mapper.valueToTree(map), model);
        }
        String text = body instanceof byte[] bytes ? new String(bytes, StandardCharsets.UTF_8) : body == null ? "" : body.toString();
        if (text.isBlank()) {
            return new byte[0];
        }
        if (!text.stripLeading().startsWith("{")) {
            return withModel(prompt(text, operation), model);
        }
        if (model == null) {
            return text.getBytes(StandardCharsets.UTF_8);
        }
        try {
            JsonNode json = mapper.readTree(text);
            return json instanceof ObjectNode object ? withModel(object, model) : text.getBytes(StandardCharsets.UTF_8);
        } catch (IOException notJson) {
            return text.getBytes(StandardCharsets.UTF_8);
        }
    }

    private ObjectNode prompt(String text, String operation) {
        ObjectNode request = mapper.createObjectNode();
        if ("embeddings".equals(operation)) {
            request.put("input", text);
        } else {
            request.putArray("messages").addObject().put("role", "user").put("content", text);
        }
        return request;
    }

    private byte[] withModel(ObjectNode request, String model) {
        if (model != null && !model.isBlank()) {
            request.put("model", model);
        }
        try {
            return mapper.writeValueAsBytes(request);
        } catch (IOException impossible) {
            throw new IllegalStateException(impossible);
        }
    }
}
