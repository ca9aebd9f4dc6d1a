package dev.keypool.translate;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * An OpenAI chat stream ({@code chat.completion.chunk} events, the usage chunk, {@code [DONE]}) as Anthropic's event
 * sequence: {@code message_start}; per text run or tool call a {@code content_block_start}, its deltas
 * ({@code text_delta}, {@code input_json_delta} with the arguments as they come) and {@code content_block_stop};
 * {@code message_delta} with the stop reason and the usage; {@code message_stop}. The end waits for {@code [DONE]},
 * since the usage chunk comes after the chunk with {@code finish_reason}.
 */
final class ChatToMessagesEvents implements StreamTranslator {

    private final ObjectMapper mapper;
    private boolean started;
    private boolean ended;
    /** The Anthropic index of the open block, -1 when none is. */
    private int openBlock = -1;
    /** Whether the open block is text (else a tool call). */
    private boolean openIsText;
    private int nextBlock;
    /** OpenAI's tool call index -> the Anthropic block index it streams into. */
    private final Map<Integer, Integer> toolBlocks = new HashMap<>();
    private String finishReason;
    private String matchedStop;
    private JsonNode usage;

    ChatToMessagesEvents(ObjectMapper mapper) {
        this.mapper = mapper;
    }

    @Override
    public List<byte[]> translate(byte[] event) {
        List<byte[]> out = new ArrayList<>(2);
        if (ended) {
            return out;
        }
        Sse sse = Sse.parse(event);
        if (sse.data() != null && "[DONE]".equals(sse.data().strip())) {
            end(out);
            return out;
        }
        JsonNode chunk = sse.json(mapper);
        if (chunk == null) {
            return out;   // comments and keep-alives
        }
        if (chunk.has("error")) {
            ended = true;
            out.add(Sse.named("error", AnthropicToOpenAi.error(500, chunk)));
            return out;
        }
        start(chunk, out);
        if (chunk.path("usage").isObject()) {
            usage = chunk.path("usage");
        }
        for (JsonNode choice : chunk.path("choices")) {
            JsonNode delta = choice.path("delta");
            String text = delta.path("content").isTextual() ? delta.path("content").asText() : "";
            if (!text.isEmpty()) {
                if (openBlock < 0 || !openIsText) {
                    closeBlock(out);
                    openBlock(out, Json.object().put("type", "text").put("text", ""), true);
                }
                delta(out, Json.object().put("type", "text_delta").put("text", text));
            }
            for (JsonNode call : delta.path("tool_calls")) {
                toolCall(call, out);
            }
            if (choice.path("finish_reason").isTextual()) {
                finishReason = choice.path("finish_reason").asText();
                matchedStop = choice.path("stop_reason").isTextual() ? choice.path("stop_reason").asText() : null;
            }
        }
        return out;
    }

    /** A tool call's first chunk (it has the id and name) opens its block; every chunk adds to its arguments. */
    private void toolCall(JsonNode call, List<byte[]> out) {
        int index = call.path("index").asInt(toolBlocks.size());
        Integer block = toolBlocks.get(index);
        if (block == null) {
            closeBlock(out);
            ObjectNode use = Json.object().put("type", "tool_use").put("id", call.path("id").asText("toolu_" + index))
                    .put("name", call.path("function").path("name").asText(""));
            use.putObject("input");
            openBlock(out, use, false);
            toolBlocks.put(index, openBlock);
            block = openBlock;
        }
        String arguments = call.path("function").path("arguments").asText("");
        if (!arguments.isEmpty()) {
            ObjectNode delta = Json.object().put("type", "content_block_delta").put("index", block);
            delta.putObject("delta").put("type", "input_json_delta").put("partial_json", arguments);
            out.add(Sse.named("content_block_delta", delta));
        }
    }

    private void start(JsonNode chunk, List<byte[]> out) {
        if (started) {
            return;
        }
        started = true;
        ObjectNode message = Json.object().put("id", AnthropicToOpenAi.messageId(chunk.path("id").asText("")))
                .put("type", "message").put("role", "assistant").put("model", chunk.path("model").asText(""));
        message.putArray("content");
        message.putNull("stop_reason").putNull("stop_sequence");
        // the prompt's tokens are known only at the end: message_delta reports them
        message.putObject("usage").put("input_tokens", 0).put("output_tokens", 0);
        ObjectNode data = Json.object().put("type", "message_start");
        data.set("message", message);
        out.add(Sse.named("message_start", data));
    }

    private void openBlock(List<byte[]> out, ObjectNode block, boolean text) {
        openBlock = nextBlock++;
        openIsText = text;
        ObjectNode data = Json.object().put("type", "content_block_start").put("index", openBlock);
        data.set("content_block", block);
        out.add(Sse.named("content_block_start", data));
    }

    private void delta(List<byte[]> out, ObjectNode delta) {
        ObjectNode data = Json.object().put("type", "content_block_delta").put("index", openBlock);
        data.set("delta", delta);
        out.add(Sse.named("content_block_delta", data));
    }

    private void closeBlock(List<byte[]> out) {
        if (openBlock >= 0) {
            out.add(Sse.named("content_block_stop", Json.object().put("type", "content_block_stop").put("index", openBlock)));
            openBlock = -1;
        }
    }

    private void end(List<byte[]> out) {
        ended = true;
        start(Json.object(), out);
        closeBlock(out);
        String stopReason = StopReasons.stopReason(finishReason == null ? "stop" : finishReason, matchedStop);
        ObjectNode data = Json.object().put("type", "message_delta");
        data.putObject("delta").put("stop_reason", stopReason)
                .put("stop_sequence", "stop_sequence".equals(stopReason) ? matchedStop : null);
        data.set("usage", AnthropicToOpenAi.usage(usage == null ? Json.object() : usage));
        out.add(Sse.named("message_delta", data));
        out.add(Sse.named("message_stop", Json.object().put("type", "message_stop")));
    }
}
