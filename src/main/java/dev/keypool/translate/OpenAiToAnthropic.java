package dev.keypool.translate;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * An OpenAI chat completion request as Anthropic's Messages request, and the message back as a chat completion
 * (docs/translation.md). Fields Anthropic has no place for ({@code n}, {@code logprobs}, {@code response_format},
 * penalties, {@code seed}) are left out.
 */
final class OpenAiToAnthropic {

    private OpenAiToAnthropic() {
    }

    static ObjectNode request(ObjectNode client, TranslationSettings settings) {
        ObjectNode messages = Json.object();
        messages.set("model", client.path("model"));
        StringBuilder system = new StringBuilder();
        ArrayNode turns = Json.NODES.arrayNode();
        for (JsonNode message : client.path("messages")) {
            String role = message.path("role").asText();
            switch (role) {
                case "system", "developer" -> {
                    if (system.length() > 0) {
                        system.append("\n\n");
                    }
                    system.append(Json.text(message.get("content")));
                }
                case "assistant" -> turn(turns, "assistant", assistant(message));
                case "tool" -> {
                    ArrayNode result = Json.NODES.arrayNode();
                    result.addObject().put("type", "tool_result").put("tool_use_id", message.path("tool_call_id").asText())
                            .put("content", Json.text(message.get("content")));
                    turn(turns, "user", result);
                }
                default -> turn(turns, "user", user(message.path("content")));
            }
        }
        if (system.length() > 0) {
            messages.put("system", system.toString());
        }
        messages.set("messages", turns);
        JsonNode max = client.has("max_completion_tokens") && !client.get("max_completion_tokens").isNull()
                ? client.get("max_completion_tokens") : client.get("max_tokens");
        messages.put("max_tokens", max != null && max.canConvertToLong() ? max.asLong() : settings.defaultMaxTokens());
        JsonNode stop = client.get("stop");
        if (stop != null && stop.isTextual()) {
            messages.putArray("stop_sequences").add(stop.asText());
        } else if (stop != null && stop.isArray() && !stop.isEmpty()) {
            messages.set("stop_sequences", stop);
        }
        Json.copy(client, "temperature", messages, "temperature");
        Json.copy(client, "top_p", messages, "top_p");
        JsonNode user = client.get("user");
        if (user != null && user.isTextual()) {
            messages.putObject("metadata").put("user_id", user.asText());
        }
        tools(client, messages);
        if (client.path("stream").asBoolean(false)) {
            messages.put("stream", true);
        }
        return messages;
    }

    /** Anthropic wants turns that alternate: a turn of the same role as the last one joins it. */
    private static void turn(ArrayNode turns, String role, ArrayNode blocks) {
        if (blocks.isEmpty()) {
            return;
        }
        JsonNode last = turns.isEmpty() ? null : turns.get(turns.size() - 1);
        if (last != null && role.equals(last.path("role").asText())) {
            ((ArrayNode) last.get("content")).addAll(blocks);
            return;
        }
        turns.addObject().put("role", role).set("content", blocks);
    }

    /** A user message's text and images as blocks. */
    private static ArrayNode user(JsonNode content) {
        ArrayNode blocks = Json.NODES.arrayNode();
        if (!content.isArray()) {
            blocks.addObject().put("type", "text").put("text", content.asText(""));
            return blocks;
        }
        for (JsonNode part : content) {
            switch (part.path("type").asText()) {
                case "text" -> blocks.addObject().put("type", "text").put("text", part.path("text").asText());
                case "image_url" -> blocks.add(image(part.path("image_url").path("url").asText()));
                default -> {
                    // audio and files have no Messages counterpart here
                }
            }
        }
        return blocks;
    }

    /** A data: URL as a base64 source, any other URL as a url source. */
    private static ObjectNode image(String url) {
        ObjectNode image = Json.object().put("type", "image");
        int comma = url.indexOf(',');
        if (url.startsWith("data:") && comma > 0 && url.substring(0, comma).endsWith(";base64")) {
            image.putObject("source").put("type", "base64")
                    .put("media_type", url.substring("data:".length(), comma - ";base64".length()))
                    .put("data", url.substring(comma + 1));
        } else {
            image.putObject("source").put("type", "url").put("url", url);
        }
        return image;
    }

    /** An assistant message: its text, then its tool calls as tool_use blocks. */
    private static ArrayNode assistant(JsonNode message) {
        ArrayNode blocks = Json.NODES.arrayNode();
        String text = Json.text(message.get("content"));
        if (!text.isEmpty()) {
            blocks.addObject().put("type", "text").put("text", text);
        }
        for (JsonNode call : message.path("tool_calls")) {
            ObjectNode use = blocks.addObject().put("type", "tool_use").put("id", call.path("id").asText());
            use.put("name", call.path("function").path("name").asText());
            use.set("input", Json.arguments(call.path("function").get("arguments")));
        }
        return blocks;
    }

    private static void tools(JsonNode client, ObjectNode messages) {
        JsonNode tools = client.get("tools");
        if (tools != null && tools.isArray() && !tools.isEmpty()) {
            ArrayNode out = messages.putArray("tools");
            for (JsonNode tool : tools) {
                JsonNode function = tool.path("function");
                ObjectNode described = out.addObject().put("name", function.path("name").asText());
                Json.copy(function, "description", described, "description");
                described.set("input_schema", function.has("parameters") ? function.get("parameters")
                        : Json.object().put("type", "object"));
            }
        }
        JsonNode choice = client.get("tool_choice");
        ObjectNode mapped = null;
        if (choice != null && choice.isTextual()) {
            mapped = switch (choice.asText()) {
                case "required" -> Json.object().put("type", "any");
                case "none" -> Json.object().put("type", "none");
                default -> Json.object().put("type", "auto");
            };
        } else if (choice != null && choice.isObject()) {
            mapped = Json.object().put("type", "tool").put("name", choice.path("function").path("name").asText());
        }
        if (client.path("parallel_tool_calls").isBoolean() && !client.path("parallel_tool_calls").asBoolean()) {
            mapped = mapped == null ? Json.object().put("type", "auto") : mapped;
            mapped.put("disable_parallel_tool_use", true);
        }
        if (mapped != null) {
            messages.set("tool_choice", mapped);
        }
    }

    /** An Anthropic message as an OpenAI chat completion. */
    static ObjectNode answer(JsonNode message, long created) {
        ObjectNode chat = Json.object();
        chat.put("id", message.path("id").asText(""));
        chat.put("object", "chat.completion").put("created", created);
        chat.put("model", message.path("model").asText(""));
        ObjectNode choice = chat.putArray("choices").addObject().put("index", 0);
        AnthropicToOpenAi.assistantContent(message.path("content"), choice.putObject("message").put("role", "assistant"));
        choice.putNull("logprobs");
        String stop = message.path("stop_reason").isTextual() ? message.path("stop_reason").asText() : null;
        choice.put("finish_reason", StopReasons.finishReason(stop));
        chat.set("usage", usage(message.path("usage")));
        return chat;
    }

    /** Anthropic's usage as OpenAI's: the cache tokens are part of {@code prompt_tokens}, the read ones named apart. */
    static ObjectNode usage(JsonNode usage) {
        long cacheRead = usage.path("cache_read_input_tokens").asLong(0);
        long prompt = usage.path("input_tokens").asLong(0) + usage.path("cache_creation_input_tokens").asLong(0) + cacheRead;
        long completion = usage.path("output_tokens").asLong(0);
        ObjectNode out = Json.object().put("prompt_tokens", prompt).put("completion_tokens", completion)
                .put("total_tokens", prompt + completion);
        if (usage.has("cache_read_input_tokens")) {
            out.putObject("prompt_tokens_details").put("cached_tokens", cacheRead);
        }
        return out;
    }

    /** Anthropic's {@code {"type":"error","error":{"type","message"}}} as OpenAI's {@code {"error":{"message","type","code"}}}. */
    static ObjectNode error(int status, JsonNode upstream) {
        JsonNode error = upstream.path("error");
        String message = error.path("message").asText("");
        ObjectNode out = Json.object();
        out.putObject("error").put("message", message.isEmpty() ? "The provider answered " + status : message)
                .put("type", error.path("type").asText("api_error")).putNull("param").putNull("code");
        return out;
    }
}
