package dev.keypool.translate;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * Anthropic's Messages request as an OpenAI chat completion request, and the chat answer back as an Anthropic message
 * (docs/translation.md). Fields OpenAI has no place for ({@code top_k}, thinking blocks, cache_control) are left out.
 */
final class AnthropicToOpenAi {

    private AnthropicToOpenAi() {
    }

    static ObjectNode request(ObjectNode client) {
        ObjectNode chat = Json.object();
        chat.set("model", client.path("model"));
        ArrayNode messages = chat.putArray("messages");
        String system = Json.text(client.get("system"));
        if (!system.isEmpty()) {
            messages.addObject().put("role", "system").put("content", system);
        }
        for (JsonNode message : client.path("messages")) {
            if ("assistant".equals(message.path("role").asText())) {
                messages.add(assistant(message.path("content")));
            } else {
                user(message.path("content"), messages);
            }
        }
        Json.copy(client, "max_tokens", chat, "max_tokens");
        Json.copy(client, "temperature", chat, "temperature");
        Json.copy(client, "top_p", chat, "top_p");
        JsonNode stops = client.get("stop_sequences");
        if (stops != null && stops.isArray() && !stops.isEmpty()) {
            chat.set("stop", stops);
        }
        JsonNode user = client.path("metadata").get("user_id");
        if (user != null && user.isTextual()) {
            chat.put("user", user.asText());
        }
        tools(client, chat);
        if (client.path("stream").asBoolean(false)) {
            chat.put("stream", true);
            // the usage chunk is what message_delta reports at the end
            chat.putObject("stream_options").put("include_usage", true);
        }
        return chat;
    }

    /** A user turn: its tool results as {@code tool} messages first, then its text and images as one user message. */
    private static void user(JsonNode content, ArrayNode messages) {
        if (!content.isArray()) {
            messages.addObject().put("role", "user").put("content", content.asText(""));
            return;
        }
        ArrayNode parts = Json.NODES.arrayNode();
        for (JsonNode block : content) {
            switch (block.path("type").asText()) {
                case "tool_result" -> {
                    String text = Json.text(block.get("content"));
                    messages.addObject().put("role", "tool").put("tool_call_id", block.path("tool_use_id").asText())
                            .put("content", block.path("is_error").asBoolean(false) && text.isEmpty() ? "error" : text);
                }
                case "text" -> parts.addObject().put("type", "text").put("text", block.path("text").asText());
                case "image" -> parts.addObject().put("type", "image_url").putObject("image_url")
                        .put("url", imageUrl(block.path("source")));
                default -> {
                    // documents, thinking and the like have no OpenAI counterpart
                }
            }
        }
        if (parts.isEmpty()) {
            return;
        }
        ObjectNode user = messages.addObject().put("role", "user");
        if (parts.size() == 1 && "text".equals(parts.get(0).path("type").asText())) {
            user.put("content", parts.get(0).path("text").asText());
        } else {
            user.set("content", parts);
        }
    }

    /** A base64 image as a data: URL, a URL image as its URL. */
    private static String imageUrl(JsonNode source) {
        if ("base64".equals(source.path("type").asText())) {
            return "data:" + source.path("media_type").asText() + ";base64," + source.path("data").asText();
        }
        return source.path("url").asText();
    }

    /** An assistant turn: its text joined, its tool_use blocks as {@code tool_calls}. */
    private static ObjectNode assistant(JsonNode content) {
        ObjectNode assistant = Json.object().put("role", "assistant");
        if (!content.isArray()) {
            assistant.put("content", content.asText(""));
            return assistant;
        }
        return assistantContent(content, assistant);
    }

    /**
     * Anthropic content blocks as an OpenAI assistant message's {@code content} (the text blocks joined; null when
     * there are only tool calls) and {@code tool_calls} (the tool_use blocks), put on {@code message}: for an assistant
     * turn of a request and for the message of an answer alike.
     */
    static ObjectNode assistantContent(JsonNode blocks, ObjectNode message) {
        StringBuilder text = new StringBuilder();
        ArrayNode calls = Json.NODES.arrayNode();
        for (JsonNode block : blocks) {
            switch (block.path("type").asText()) {
                case "text" -> text.append(block.path("text").asText());
                case "tool_use" -> {
                    ObjectNode call = calls.addObject().put("id", block.path("id").asText()).put("type", "function");
                    call.putObject("function").put("name", block.path("name").asText())
                            .put("arguments", Json.write(block.get("input")));
                }
                default -> {
                    // thinking blocks stay with the provider that wrote them: OpenAI's messages have no place for them
                }
            }
        }
        if (text.length() > 0 || calls.isEmpty()) {
            message.put("content", text.toString());
        } else {
            message.putNull("content");
        }
        if (!calls.isEmpty()) {
            message.set("tool_calls", calls);
        }
        return message;
    }

    private static void tools(JsonNode client, ObjectNode chat) {
        JsonNode tools = client.get("tools");
        if (tools != null && tools.isArray() && !tools.isEmpty()) {
            ArrayNode functions = chat.putArray("tools");
            for (JsonNode tool : tools) {
                ObjectNode function = functions.addObject().put("type", "function").putObject("function");
                function.put("name", tool.path("name").asText());
                Json.copy(tool, "description", function, "description");
                function.set("parameters", tool.has("input_schema") ? tool.get("input_schema")
                        : Json.object().put("type", "object"));
            }
        }
        JsonNode choice = client.get("tool_choice");
        if (choice == null || !choice.isObject()) {
            return;
        }
        switch (choice.path("type").asText()) {
            case "auto" -> chat.put("tool_choice", "auto");
            case "any" -> chat.put("tool_choice", "required");
            case "none" -> chat.put("tool_choice", "none");
            case "tool" -> chat.putObject("tool_choice").put("type", "function").putObject("function")
                    .put("name", choice.path("name").asText());
            default -> {
                // an unknown choice: the provider's default
            }
        }
        if (choice.path("disable_parallel_tool_use").asBoolean(false)) {
            chat.put("parallel_tool_calls", false);
        }
    }

    /** An OpenAI chat completion as an Anthropic message. */
    static ObjectNode answer(JsonNode chat) {
        JsonNode choice = chat.path("choices").path(0);
        JsonNode message = choice.path("message");
        ObjectNode out = Json.object();
        out.put("id", messageId(chat.path("id").asText("")));
        out.put("type", "message").put("role", "assistant");
        out.put("model", chat.path("model").asText(""));
        ArrayNode content = out.putArray("content");
        String text = Json.text(message.get("content"));
        if (!text.isEmpty()) {
            content.addObject().put("type", "text").put("text", text);
        }
        for (JsonNode call : message.path("tool_calls")) {
            ObjectNode use = content.addObject().put("type", "tool_use").put("id", call.path("id").asText());
            use.put("name", call.path("function").path("name").asText());
            use.set("input", Json.arguments(call.path("function").get("arguments")));
        }
        String matched = choice.path("stop_reason").isTextual() ? choice.path("stop_reason").asText() : null;
        String finish = choice.path("finish_reason").isTextual() ? choice.path("finish_reason").asText() : null;
        String stopReason = StopReasons.stopReason(finish, matched);
        out.put("stop_reason", stopReason);
        out.put("stop_sequence", "stop_sequence".equals(stopReason) ? matched : null);
        out.set("usage", usage(chat.path("usage")));
        return out;
    }

    /** Anthropic's ids start msg_; the SDKs do not check, people reading logs do. */
    static String messageId(String chatId) {
        return chatId.startsWith("msg_") ? chatId : "msg_" + chatId;
    }

    /**
     * OpenAI's usage as Anthropic's: the cached prompt tokens ({@code prompt_tokens_details.cached_tokens}, or
     * DeepSeek's {@code prompt_cache_hit_tokens}) apart from {@code input_tokens}, as Anthropic counts them.
     */
    static ObjectNode usage(JsonNode usage) {
        long prompt = usage.path("prompt_tokens").asLong(0);
        JsonNode cachedNode = usage.path("prompt_tokens_details").get("cached_tokens");
        if (cachedNode == null || cachedNode.isNull()) {
            cachedNode = usage.get("prompt_cache_hit_tokens");
        }
        ObjectNode out = Json.object();
        long cached = cachedNode == null || cachedNode.isNull() ? 0 : cachedNode.asLong(0);
        out.put("input_tokens", Math.max(0, prompt - cached));
        if (cachedNode != null && !cachedNode.isNull()) {
            out.put("cache_read_input_tokens", cached);
        }
        out.put("output_tokens", usage.path("completion_tokens").asLong(0));
        return out;
    }

    /** OpenAI's {@code {"error":{"message","type","code"}}} as Anthropic's {@code {"type":"error","error":{"type","message"}}}. */
    static ObjectNode error(int status, JsonNode upstream) {
        JsonNode error = upstream.path("error");
        String message = error.isObject() ? error.path("message").asText("") : error.asText("");
        if (message.isEmpty()) {
            message = "The provider answered " + status;
        }
        ObjectNode out = Json.object().put("type", "error");
        out.putObject("error").put("type", AnthropicErrors.type(status)).put("message", message);
        return out;
    }
}
