package dev.keypool.camel;

import java.util.concurrent.atomic.AtomicLong;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.keypool.auth.Bearer;
import dev.keypool.camel.pipeline.Exchanges;
import dev.keypool.pool.Fingerprint;
import org.apache.camel.Exchange;
import org.apache.camel.Message;

/**
 * The built-in upstream SIMULATOR of the default configuration (routes/demo-upstream.camel.yaml): an
 * OpenAI-compatible fake, not an LLM, so that a first run needs no provider keys and shows rotation,
 * cooldown and disabling at work.
 */
public final class DemoUpstream {

    static final String RATE_LIMITED_KEY = "demo-key-rate-limited";
    static final String REVOKED_KEY = "demo-key-revoked";

    private final ObjectMapper mapper;
    private final AtomicLong ids = new AtomicLong();

    public DemoUpstream(ObjectMapper mapper) {
        this.mapper = mapper;
    }

    public void chatCompletion(Exchange exchange) throws Exception {
        if (refused(exchange)) {
            return;
        }
        JsonNode request = mapper.readTree(exchange.getMessage().getBody(byte[].class));
        String model = request.path("model").asText("demo");
        String key = bearer(exchange);
        String text = "Hello from the KeyPool demo simulator (not a real LLM). Served by key "
                + Fingerprint.of(key) + ".";
        ObjectNode root = mapper.createObjectNode()
                .put("id", "chatcmpl-demo-" + ids.incrementAndGet())
                .put("object", "chat.completion")
                .put("created", System.currentTimeMillis() / 1000)
                .put("model", model);
        ObjectNode choice = root.putArray("choices").addObject().put("index", 0).put("finish_reason", "stop");
        choice.putObject("message").put("role", "assistant").put("content", text);
        int prompt = Math.max(1, request.path("messages").toString().length() / 4);
        int completion = Math.max(1, text.length() / 4);
        if (request.path("stream").asBoolean(false)) {
            streamed(exchange.getMessage(), root.path("id").asText(), model, text, prompt, completion,
                    request.path("stream_options").path("include_usage").asBoolean(false));
            return;
        }
        root.putObject("usage").put("prompt_tokens", prompt).put("completion_tokens", completion)
                .put("total_tokens", prompt + completion);
        answer(exchange.getMessage(), 200, root);
    }

    /** The same answer as Server-Sent Events, one word per chunk (sent in one piece: it is canned anyway). */
    private void streamed(Message message, String id, String model, String text, int prompt, int completion,
                          boolean includeUsage) throws Exception {
        StringBuilder sse = new StringBuilder();
        String[] words = text.split(" ");
        for (int i = 0; i < words.length; i++) {
            ObjectNode chunk = chunk(id, model);
            ObjectNode choice = chunk.putArray("choices").addObject().put("index", 0);
            choice.putObject("delta").put("content", (i == 0 ? "" : " ") + words[i]);
            if (i == words.length - 1) {
                choice.put("finish_reason", "stop");
            } else {
                choice.putNull("finish_reason");
            }
            sse.append("data: ").append(mapper.writeValueAsString(chunk)).append("\n\n");
        }
        if (includeUsage) {
            ObjectNode usage = chunk(id, model);
            usage.putArray("choices");
            usage.putObject("usage").put("prompt_tokens", prompt).put("completion_tokens", completion)
                    .put("total_tokens", prompt + completion);
            sse.append("data: ").append(mapper.writeValueAsString(usage)).append("\n\n");
        }
        sse.append("data: [DONE]\n\n");
        Exchanges.answer(message, 200, "text/event-stream", sse.toString());
    }

    private ObjectNode chunk(String id, String model) {
        return mapper.createObjectNode().put("id", id).put("object", "chat.completion.chunk")
                .put("created", System.currentTimeMillis() / 1000).put("model", model);
    }

    public void embedding(Exchange exchange) throws Exception {
        if (refused(exchange)) {
            return;
        }
        JsonNode request = mapper.readTree(exchange.getMessage().getBody(byte[].class));
        ObjectNode root = mapper.createObjectNode().put("object", "list").put("model", request.path("model").asText("demo"));
        ObjectNode item = root.putArray("data").addObject().put("object", "embedding").put("index", 0);
        int seed = request.path("input").toString().hashCode();
        for (int i = 0; i < 8; i++) {
            item.withArray("embedding").add(((seed >> i) & 0xff) / 255.0);
        }
        root.putObject("usage").put("prompt_tokens", 1).put("total_tokens", 1);
        answer(exchange.getMessage(), 200, root);
    }

    /** The two keys of the demo that always fail, the way real providers fail. */
    private boolean refused(Exchange exchange) throws Exception {
        String key = bearer(exchange);
        Message message = exchange.getMessage();
        if (RATE_LIMITED_KEY.equals(key)) {
            answer(message, 429, error("Rate limit reached for this key (simulated)", "rate_limit_exceeded"));
            message.setHeader("Retry-After", "30");
            return true;
        }
        if (REVOKED_KEY.equals(key) || key.isEmpty()) {
            answer(message, 401, error("Incorrect API key provided (simulated)", "invalid_api_key"));
            return true;
        }
        return false;
    }

    private ObjectNode error(String text, String code) {
        ObjectNode root = mapper.createObjectNode();
        root.putObject("error").put("message", text).put("type", "invalid_request_error").put("code", code);
        return root;
    }

    private void answer(Message message, int status, ObjectNode body) throws Exception {
        Exchanges.answer(message, status, "application/json", mapper.writeValueAsBytes(body));
    }

    private static String bearer(Exchange exchange) {
        return Bearer.token(exchange.getMessage().getHeader(Bearer.HEADER, String.class)).orElse("");
    }
}
