package dev.keypool.translate;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;

/** The little JSON the mappings share: a text of blocks, and tool arguments between a JSON string and an object. */
final class Json {

    static final JsonNodeFactory NODES = JsonNodeFactory.instance;
    private static final ObjectMapper MAPPER = new ObjectMapper();

    private Json() {
    }

    static ObjectNode object() {
        return NODES.objectNode();
    }

    /** The text of a content that is a string, or an array of blocks or parts with {@code text}, joined by newlines. */
    static String text(JsonNode content) {
        if (content == null || content.isNull() || content.isMissingNode()) {
            return "";
        }
        if (content.isTextual()) {
            return content.asText();
        }
        StringBuilder text = new StringBuilder();
        for (JsonNode part : content) {
            if (part.isTextual() || part.has("text")) {
                if (text.length() > 0) {
                    text.append('\n');
                }
                text.append(part.isTextual() ? part.asText() : part.path("text").asText());
            }
        }
        return text.toString();
    }

    /** Tool arguments as OpenAI sends them, a JSON text, as the object Anthropic's {@code input} is; {} when not one. */
    static JsonNode arguments(JsonNode arguments) {
        if (arguments != null && arguments.isObject()) {
            return arguments;
        }
        String text = arguments == null || arguments.isNull() ? "" : arguments.asText();
        if (text.isBlank()) {
            return object();
        }
        try {
            JsonNode parsed = MAPPER.readTree(text);
            return parsed != null && parsed.isObject() ? parsed : object();
        } catch (JsonProcessingException notJson) {
            return object();
        }
    }

    /** An object as the JSON text of OpenAI's {@code function.arguments}. */
    static String write(JsonNode node) {
        try {
            return MAPPER.writeValueAsString(node == null || node.isMissingNode() || node.isNull() ? object() : node);
        } catch (JsonProcessingException impossible) {
            throw new IllegalStateException(impossible);
        }
    }

    /** Copies {@code from.name} to {@code to.as} when present and not null. */
    static void copy(JsonNode from, String name, ObjectNode to, String as) {
        JsonNode value = from.get(name);
        if (value != null && !value.isNull()) {
            to.set(as, value);
        }
    }
}
