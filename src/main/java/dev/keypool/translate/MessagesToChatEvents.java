package dev.keypool.translate;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * Anthropic's event stream as OpenAI {@code chat.completion.chunk} events: the role first, text deltas as
 * {@code delta.content}, a tool_use block as {@code delta.tool_calls} (id and name, then its {@code input_json_delta}s
 * as argument pieces), the stop reason as {@code finish_reason}, the usage chunk when the client asked for it
 * ({@code stream_options.include_usage}), then {@code [DONE]}. Pings and thinking blocks send nothing.
 */
final class MessagesToChatEvents implements StreamTranslator {

    private static final byte[] DONE = Sse.data("[DONE]");

    private final ObjectMapper mapper;
    private final boolean includeUsage;
    private final long created;
    private String id = "";
    private String model = "";
    private boolean ended;
    /** Anthropic block index -> OpenAI tool call index. */
    private final Map<Integer, Integer> toolCalls = new HashMap<>();
    private JsonNode promptUsage = Json.object();
    private long outputTokens;

    MessagesToChatEvents(ObjectMapper mapper, boolean includeUsage, long created) {
        this.mapper = mapper;
        this.includeUsage = includeUsage;
        this.created = created;
    }

    @Override
    public List<byte[]> translate(byte[] event) {
        List<byte[]> out = new ArrayList<>(2);
        Sse sse = Sse.parse(event);
        JsonNode data = sse.json(mapper);
        if (ended || data == null) {
            return out;
        }
        String type = sse.name() != null ? sse.name() : data.path("type").asText("");
        switch (type) {
            case "message_start" -> {
                JsonNode message = data.path("message");
                id = message.path("id").asText("");
                model = message.path("model").asText("");
                promptUsage = message.path("usage");
                outputTokens = promptUsage.path("output_tokens").asLong(0);
                ObjectNode delta = Json.object().put("role", "assistant").put("content", "");
                out.add(chunk(delta, null));
            }
            case "content_block_start" -> {
                JsonNode block = data.path("content_block");
                if ("tool_use".equals(block.path("type").asText())) {
                    int call = toolCalls.size();
                    toolCalls.put(data.path("index").asInt(), call);
                    ObjectNode tool = Json.object().put("index", call).put("id", block.path("id").asText())
                            .put("type", "function");
                    tool.putObject("function").put("name", block.path("name").asText()).put("arguments", "");
                    ObjectNode delta = Json.object();
                    delta.putArray("tool_calls").add(tool);
                    out.add(chunk(delta, null));
                } else if ("text".equals(block.path("type").asText()) && !block.path("text").asText("").isEmpty()) {
                    out.add(chunk(Json.object().put("content", block.path("text").asText()), null));
                }
            }
            case "content_block_delta" -> {
                JsonNode delta = data.path("delta");
                switch (delta.path("type").asText()) {
                    case "text_delta" -> out.add(chunk(Json.object().put("content", delta.path("text").asText()), null));
                    case "input_json_delta" -> {
                        Integer call = toolCalls.get(data.path("index").asInt());
                        if (call != null) {
                            ObjectNode tool = Json.object().put("index", call);
                            tool.putObject("function").put("arguments", delta.path("partial_json").asText());
                            ObjectNode chunkDelta = Json.object();
                            chunkDelta.putArray("tool_calls").add(tool);
                            out.add(chunk(chunkDelta, null));
                        }
                    }
                    default -> {
                        // thinking and signature deltas: no place in a chat chunk
                    }
                }
            }
            case "message_delta" -> {
                JsonNode usage = data.path("usage");
                if (usage.has("output_tokens")) {
                    outputTokens = usage.path("output_tokens").asLong(0);
                }
                if (usage.has("input_tokens")) {
                    promptUsage = usage;   // a provider that reports the prompt at the end
                }
                String stop = data.path("delta").path("stop_reason").isTextual()
                        ? data.path("delta").path("stop_reason").asText() : null;
                out.add(chunk(Json.object(), StopReasons.finishReason(stop)));
            }
            case "message_stop" -> {
                ended = true;
                if (includeUsage) {
                    ObjectNode usage = Json.object();
                    usage.setAll(promptUsage.isObject() ? (ObjectNode) promptUsage.deepCopy() : Json.object());
                    usage.put("output_tokens", outputTokens);
                    ObjectNode last = header();
                    last.putArray("choices");
                    last.set("usage", OpenAiToAnthropic.usage(usage));
                    out.add(Sse.data(last.toString()));
                }
                out.add(DONE);
            }
            case "error" -> {
                ended = true;
                out.add(Sse.data(OpenAiToAnthropic.error(500, data).toString()));
            }
            default -> {
                // ping
            }
        }
        return out;
    }

    private ObjectNode header() {
        return Json.object().put("id", id).put("object", "chat.completion.chunk").put("created", created)
                .put("model", model);
    }

    private byte[] chunk(ObjectNode delta, String finishReason) {
        ObjectNode chunk = header();
        ObjectNode choice = chunk.putArray("choices").addObject().put("index", 0);
        choice.set("delta", delta);
        choice.putNull("logprobs");
        choice.put("finish_reason", finishReason);
        return Sse.data(chunk.toString());
    }
}
