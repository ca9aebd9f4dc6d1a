package dev.keypool.langchain4j;

import java.util.List;
import java.util.Locale;
import java.util.Map;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.langchain4j.agent.tool.ToolExecutionRequest;
import dev.langchain4j.agent.tool.ToolSpecification;
import dev.langchain4j.data.image.Image;
import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.data.message.ChatMessage;
import dev.langchain4j.data.message.Content;
import dev.langchain4j.data.message.ImageContent;
import dev.langchain4j.data.message.SystemMessage;
import dev.langchain4j.data.message.TextContent;
import dev.langchain4j.data.message.ToolExecutionResultMessage;
import dev.langchain4j.data.message.UserMessage;
import dev.langchain4j.exception.UnsupportedFeatureException;
import dev.langchain4j.internal.JsonSchemaElementUtils;
import dev.langchain4j.model.chat.request.ChatRequest;
import dev.langchain4j.model.chat.request.ChatRequestParameters;
import dev.langchain4j.model.chat.request.ResponseFormat;
import dev.langchain4j.model.chat.request.ResponseFormatType;
import dev.langchain4j.model.chat.request.json.JsonObjectSchema;

/**
 * A LangChain4j {@link ChatRequest} as the OpenAI chat completion request the gateway core takes: messages (text and
 * images, tool calls and their results), the sampling parameters OpenAI has, tools, tool choice and response format.
 * What OpenAI's chat API has no field for (top_k; audio, video and PDF contents; custom messages) is refused with
 * LangChain4j's {@link UnsupportedFeatureException} rather than dropped.
 */
final class OpenAiChatRequests {

    private final ObjectMapper mapper;

    OpenAiChatRequests(ObjectMapper mapper) {
        this.mapper = mapper;
    }

    /** @param stream also asks for the usage in the stream's last chunk ({@code stream_options.include_usage}) */
    ObjectNode toJson(ChatRequest request, boolean stream) {
        ChatRequestParameters parameters = request.parameters();
        ObjectNode json = mapper.createObjectNode();
        if (parameters.modelName() == null) {
            throw new IllegalArgumentException("No model: set modelName on the KeyPool model's builder or on the request");
        }
        json.put("model", parameters.modelName());
        ArrayNode messages = json.putArray("messages");
        for (ChatMessage message : request.messages()) {
            messages.add(message(message));
        }
        putIfSet(json, "temperature", parameters.temperature());
        putIfSet(json, "top_p", parameters.topP());
        putIfSet(json, "frequency_penalty", parameters.frequencyPenalty());
        putIfSet(json, "presence_penalty", parameters.presencePenalty());
        if (parameters.maxOutputTokens() != null) {
            json.put("max_tokens", parameters.maxOutputTokens());
        }
        if (parameters.topK() != null) {
            throw new UnsupportedFeatureException("topK is not a parameter of OpenAI's chat API, which KeyPool speaks");
        }
        if (parameters.stopSequences() != null && !parameters.stopSequences().isEmpty()) {
            ArrayNode stop = json.putArray("stop");
            parameters.stopSequences().forEach(stop::add);
        }
        List<ToolSpecification> tools = parameters.toolSpecifications();
        if (tools != null && !tools.isEmpty()) {
            ArrayNode array = json.putArray("tools");
            tools.forEach(tool -> array.add(tool(tool)));
            if (parameters.toolChoice() != null) {
                json.put("tool_choice", switch (parameters.toolChoice()) {
                    case AUTO -> "auto";
                    case REQUIRED -> "required";
                    case NONE -> "none";
                });
            }
        }
        responseFormat(json, parameters.responseFormat());
        if (stream) {
            json.put("stream", true);
            json.putObject("stream_options").put("include_usage", true);
        }
        return json;
    }

    private ObjectNode message(ChatMessage message) {
        ObjectNode json = mapper.createObjectNode();
        if (message instanceof SystemMessage system) {
            return json.put("role", "system").put("content", system.text());
        }
        if (message instanceof UserMessage user) {
            json.put("role", "user");
            if (user.name() != null) {
                json.put("name", user.name());
            }
            if (user.hasSingleText()) {
                return json.put("content", user.singleText());
            }
            ArrayNode parts = json.putArray("content");
            user.contents().forEach(content -> parts.add(part(content)));
            return json;
        }
        if (message instanceof AiMessage ai) {
            json.put("role", "assistant");
            if (ai.text() == null) {
                json.putNull("content");
            } else {
                json.put("content", ai.text());
            }
            if (ai.hasToolExecutionRequests()) {
                ArrayNode calls = json.putArray("tool_calls");
                for (ToolExecutionRequest call : ai.toolExecutionRequests()) {
                    ObjectNode entry = calls.addObject().put("id", call.id()).put("type", "function");
                    entry.putObject("function").put("name", call.name()).put("arguments", call.arguments());
                }
            }
            return json;
        }
        if (message instanceof ToolExecutionResultMessage result) {
            return json.put("role", "tool").put("tool_call_id", result.id()).put("content", result.text());
        }
        throw new UnsupportedFeatureException("A " + message.type() + " message has no place in OpenAI's chat API");
    }

    private ObjectNode part(Content content) {
        ObjectNode json = mapper.createObjectNode();
        if (content instanceof TextContent text) {
            return json.put("type", "text").put("text", text.text());
        }
        if (content instanceof ImageContent image) {
            Image picture = image.image();
            String url = picture.url() != null ? picture.url().toString()
                    : "data:" + picture.mimeType() + ";base64," + picture.base64Data();
            ObjectNode imageUrl = json.put("type", "image_url").putObject("image_url").put("url", url);
            if (image.detailLevel() != null) {
                imageUrl.put("detail", image.detailLevel().name().toLowerCase(Locale.ROOT));
            }
            return json;
        }
        throw new UnsupportedFeatureException(content.type() + " contents are not sent by KeyPool's LangChain4j models");
    }

    private ObjectNode tool(ToolSpecification tool) {
        ObjectNode json = mapper.createObjectNode().put("type", "function");
        ObjectNode function = json.putObject("function").put("name", tool.name());
        if (tool.description() != null) {
            function.put("description", tool.description());
        }
        JsonObjectSchema parameters = tool.parameters();
        if (parameters == null) {
            function.putObject("parameters").put("type", "object").putObject("properties");
        } else {
            function.set("parameters", mapper.valueToTree(JsonSchemaElementUtils.toMap(parameters)));
        }
        if (Boolean.TRUE.equals(tool.strict())) {
            function.put("strict", true);
        }
        return json;
    }

    private void responseFormat(ObjectNode json, ResponseFormat format) {
        if (format == null || format.type() != ResponseFormatType.JSON) {
            return;
        }
        if (format.jsonSchema() == null) {
            json.putObject("response_format").put("type", "json_object");
            return;
        }
        ObjectNode schema = json.putObject("response_format").put("type", "json_schema").putObject("json_schema");
        schema.put("name", format.jsonSchema().name());
        Map<String, Object> root = JsonSchemaElementUtils.toMap(format.jsonSchema().rootElement());
        schema.set("schema", mapper.valueToTree(root));
    }

    private static void putIfSet(ObjectNode json, String field, Double value) {
        if (value != null) {
            json.put(field, value);
        }
    }
}
