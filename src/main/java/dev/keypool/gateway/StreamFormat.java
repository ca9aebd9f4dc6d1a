package dev.keypool.gateway;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Set;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.keypool.config.Api;

/**
 * The kinds of event stream the APIs answer (OpenAI chat and Responses, Anthropic's Messages), as far as the relay
 * must tell them apart: what ends a whole stream and where its usage is, and how the gateway says that a stream
 * broke after its first event.
 */
public enum StreamFormat {

    /** Chat and legacy completions: {@code data:} events, usage in a chunk with {@code usage}, ends with {@code data: [DONE]}. */
    CHAT {
        @Override
        public StreamEvent read(byte[] event, ObjectMapper mapper) {
            String text = new String(event, StandardCharsets.UTF_8).strip();
            if (!text.startsWith("data:")) {
                return StreamEvent.OTHER;
            }
            String data = dataText(text).strip();
            if ("[DONE]".equals(data)) {
                return StreamEvent.end(false);
            }
            if (!data.contains("\"usage\"")) {
                return StreamEvent.OTHER;   // most events: no need to parse them
            }
            JsonNode chunk = json(data, mapper);
            JsonNode usage = chunk == null ? null : chunk.path("usage");
            if (usage == null || !usage.isObject()) {
                return StreamEvent.OTHER;
            }
            boolean usageOnly = chunk.path("choices").isArray() && chunk.path("choices").isEmpty();
            return StreamEvent.withUsage(false, usageOnly, usage);
        }

        @Override
        public String endName() {
            return "[DONE]";
        }

        /** {@code choices[].delta.content} (chat) or {@code choices[].text} (legacy completions). */
        @Override
        public void appendAnswerText(byte[] event, ObjectMapper mapper, StringBuilder answer) {
            JsonNode data = data(new String(event, StandardCharsets.UTF_8), mapper);
            if (data != null) {
                for (JsonNode choice : data.path("choices")) {
                    answer.append(choice.path("delta").path("content").asText(""));
                    answer.append(choice.path("text").asText(""));
                }
            }
        }

        @Override
        public String errorEvent(ObjectMapper mapper, String message, int eventsSent) {
            ObjectNode root = mapper.createObjectNode();
            root.putObject("error").put("message", message).put("type", "upstream_error").put("code", STREAM_INTERRUPTED);
            return "data: " + root + "\n\n";
        }
    },

    /**
     * Responses: typed events ({@code event: response.output_text.delta} then {@code data:}); the stream ends with
     * {@code response.completed}, {@code response.failed} or {@code response.incomplete} (no [DONE]), whose
     * {@code response.usage} has {@code input_tokens} and {@code output_tokens}.
     */
    RESPONSES {
        @Override
        public StreamEvent read(byte[] event, ObjectMapper mapper) {
            String text = new String(event, StandardCharsets.UTF_8);
            // the type is the event: line, never a search of the text: an answer may well mention "response.completed"
            String type = eventName(text);
            JsonNode data = null;
            if (type == null && (text.contains("\"response.") || text.contains("\"error\""))) {
                data = data(text, mapper);   // a provider that names its events only in the data
                type = data == null ? null : data.path("type").asText(null);
            }
            if (type == null || !(type.equals("error") || TERMINAL_EVENTS.contains(type))) {
                return StreamEvent.OTHER;   // deltas and the like: no need to parse them
            }
            boolean failed = type.equals("error") || type.equals("response.failed");
            data = data != null ? data : data(text, mapper);
            JsonNode usage = data == null ? null : data.path("response").path("usage");
            return usage != null && usage.isObject() ? StreamEvent.withUsage(true, false, usage, failed) : StreamEvent.end(failed);
        }

        @Override
        public String endName() {
            return "response.completed";
        }

        /** As OpenAI's ResponseErrorEvent: {@code event: error}, data {@code {"type":"error","code","message","param","sequence_number"}}. */
        @Override
        public String errorEvent(ObjectMapper mapper, String message, int eventsSent) {
            ObjectNode data = mapper.createObjectNode().put("type", "error").put("code", STREAM_INTERRUPTED)
                    .put("message", message).putNull("param").put("sequence_number", eventsSent);
            return "event: error\ndata: " + data + "\n\n";
        }
    },

    /**
     * Anthropic's Messages: typed events ({@code event: content_block_delta} then {@code data:}); {@code message_start}
     * carries the prompt's usage ({@code message.usage}: input and cache tokens), {@code message_delta} the answer's
     * ({@code usage.output_tokens}, cumulative), and the stream ends with {@code message_stop}. Deltas and pings pass
     * through unparsed.
     */
    MESSAGES {
        @Override
        public StreamEvent read(byte[] event, ObjectMapper mapper) {
            String text = new String(event, StandardCharsets.UTF_8);
            String type = eventName(text);
            if (type == null && text.contains("\"message_")) {
                JsonNode data = data(text, mapper);   // a provider that names its events only in the data
                type = data == null ? null : data.path("type").asText(null);
            }
            if ("message_stop".equals(type) || "error".equals(type)) {
                return StreamEvent.end("error".equals(type));
            }
            if (!"message_start".equals(type) && !"message_delta".equals(type)) {
                return StreamEvent.OTHER;
            }
            JsonNode data = data(text, mapper);
            JsonNode usage = data == null ? null
                    : "message_start".equals(type) ? data.path("message").path("usage") : data.path("usage");
            return usage != null && usage.isObject() ? StreamEvent.withUsage(false, false, usage) : StreamEvent.OTHER;
        }

        @Override
        public String endName() {
            return "message_stop";
        }

        /** As Anthropic ends a stream that failed: {@code event: error}, data {@code {"type":"error","error":{"type","message"}}}. */
        @Override
        public String errorEvent(ObjectMapper mapper, String message, int eventsSent) {
            ObjectNode data = mapper.createObjectNode().put("type", "error");
            data.putObject("error").put("type", "api_error").put("message", message);
            return "event: error\ndata: " + data + "\n\n";
        }
    };

    /** The code of the error event the gateway adds when a provider's stream breaks after its first event. */
    public static final String STREAM_INTERRUPTED = "stream_interrupted";

    private static final Set<String> TERMINAL_EVENTS = Set.of("response.completed", "response.failed", "response.incomplete");

    public static StreamFormat of(Api api) {
        return api == Api.RESPONSES ? RESPONSES : api == Api.MESSAGES ? MESSAGES : CHAT;
    }

    /** What one whole event (with its blank line) says; {@link StreamEvent#done()} for the event that ends the stream. */
    public abstract StreamEvent read(byte[] event, ObjectMapper mapper);

    /**
     * Appends the answer text an event carries, for a stream that reports no usage, so that its tokens can be
     * counted; by default nothing, for formats whose end event always reports usage.
     */
    public void appendAnswerText(byte[] event, ObjectMapper mapper, StringBuilder answer) {
        // Responses and Messages report usage in their protocol
    }

    /** The end event's name, for messages. */
    public abstract String endName();

    /** The event that tells the client the stream broke and the answer is incomplete. */
    public abstract String errorEvent(ObjectMapper mapper, String message, int eventsSent);

    /** The value of an event's {@code event:} line, or null when it has none. */
    private static String eventName(String event) {
        int start = event.startsWith("event:") ? 0 : event.indexOf("\nevent:") + 1;
        if (start == 0 && !event.startsWith("event:")) {
            return null;
        }
        int end = event.indexOf('\n', start);
        return event.substring(start + "event:".length(), end < 0 ? event.length() : end).strip();
    }

    /** The JSON of an event's {@code data:} lines, or null. */
    private static JsonNode data(String event, ObjectMapper mapper) {
        return json(dataText(event), mapper);
    }

    /** An event's {@code data:} lines, joined by newlines as SSE does; empty when it has none. */
    private static String dataText(String event) {
        StringBuilder data = new StringBuilder();
        for (String line : event.split("\r?\n")) {
            if (line.startsWith("data:")) {
                if (data.length() > 0) {
                    data.append('\n');
                }
                data.append(line.substring(line.startsWith("data: ") ? 6 : 5));
            }
        }
        return data.toString();
    }

    private static JsonNode json(String data, ObjectMapper mapper) {
        try {
            return data.isEmpty() ? null : mapper.readTree(data);
        } catch (IOException notJson) {
            return null;
        }
    }
}
