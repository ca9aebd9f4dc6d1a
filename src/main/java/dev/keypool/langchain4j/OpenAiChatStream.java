package dev.keypool.langchain4j;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.keypool.component.KeyPoolStreamListener;
import dev.langchain4j.agent.tool.ToolExecutionRequest;
import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.exception.InternalServerException;
import dev.langchain4j.model.chat.response.ChatResponse;
import dev.langchain4j.model.chat.response.ChatResponseMetadata;
import dev.langchain4j.model.chat.response.CompleteToolCall;
import dev.langchain4j.model.chat.response.PartialResponse;
import dev.langchain4j.model.chat.response.PartialResponseContext;
import dev.langchain4j.model.chat.response.PartialThinking;
import dev.langchain4j.model.chat.response.PartialThinkingContext;
import dev.langchain4j.model.chat.response.PartialToolCall;
import dev.langchain4j.model.chat.response.PartialToolCallContext;
import dev.langchain4j.model.chat.response.StreamingChatResponseHandler;
import dev.langchain4j.model.chat.response.StreamingHandle;
import dev.langchain4j.model.output.FinishReason;
import dev.langchain4j.model.output.TokenUsage;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One streamed answer, read from the gateway's OpenAI chat chunks as they arrive and handed to a LangChain4j
 * {@link StreamingChatResponseHandler}: each text delta as a partial response, each piece of a tool call's arguments
 * as a partial tool call, each tool call once whole (when the next one starts, or at the end), and at the end the
 * whole response. Every callback carries a {@link StreamingHandle} whose cancel stops the provider's stream.
 */
final class OpenAiChatStream implements KeyPoolStreamListener {

    private static final Logger LOG = LoggerFactory.getLogger(OpenAiChatStream.class);

    private final ObjectMapper mapper;
    private final StreamingChatResponseHandler handler;
    private final Handle handle = new Handle();
    private final StringBuilder text = new StringBuilder();
    private final StringBuilder thinking = new StringBuilder();
    private final List<ToolExecutionRequest> toolCalls = new ArrayList<>();
    private ToolCallInProgress toolCall;
    private String id;
    private String model;
    private FinishReason finishReason;
    private TokenUsage usage;
    private RuntimeException error;
    private boolean done;

    OpenAiChatStream(ObjectMapper mapper, StreamingChatResponseHandler handler) {
        this.mapper = mapper;
        this.handler = handler;
    }

    @Override
    public void onOpen(Map<String, String> headers, Runnable cancel) {
        handle.cancel = cancel;
    }

    @Override
    public void onEvent(String event) {
        for (String line : event.split("\n")) {
            if (!line.startsWith("data:")) {
                continue;
            }
            String data = line.substring(5).strip();
            if (data.equals("[DONE]")) {
                done = true;
            } else if (!data.isEmpty()) {
                chunk(data);
            }
        }
    }

    private void chunk(String data) {
        JsonNode chunk;
        try {
            chunk = mapper.readTree(data);
        } catch (IOException e) {
            error = new InternalServerException("The stream sent an event that is not JSON: " + e.getMessage());
            return;
        }
        if (chunk.has("error")) {
            // the provider's stream broke after its first event: the answer is incomplete
            JsonNode failure = chunk.get("error");
            error = new InternalServerException(failure.path("code").asText("stream_error") + ": "
                    + failure.path("message").asText("the stream broke"));
            return;
        }
        id = id == null ? OpenAiChatAnswers.text(chunk.get("id")) : id;
        model = model == null ? OpenAiChatAnswers.text(chunk.get("model")) : model;
        TokenUsage reported = OpenAiChatAnswers.usage(chunk.get("usage"));
        usage = reported == null ? usage : reported;
        JsonNode choice = chunk.path("choices").path(0);
        JsonNode delta = choice.path("delta");
        String content = OpenAiChatAnswers.text(delta.get("content"));
        if (content != null && !content.isEmpty()) {
            text.append(content);
            call(() -> handler.onPartialResponse(new PartialResponse(content), new PartialResponseContext(handle)));
        }
        String reasoning = OpenAiChatAnswers.text(delta.get("reasoning_content"));
        if (reasoning != null && !reasoning.isEmpty()) {
            thinking.append(reasoning);
            call(() -> handler.onPartialThinking(new PartialThinking(reasoning), new PartialThinkingContext(handle)));
        }
        for (JsonNode piece : delta.path("tool_calls")) {
            toolCallPiece(piece);
        }
        FinishReason reason = OpenAiChatAnswers.finishReason(OpenAiChatAnswers.text(choice.get("finish_reason")));
        finishReason = reason == null ? finishReason : reason;
    }

    private void toolCallPiece(JsonNode piece) {
        int index = piece.path("index").asInt(toolCall == null ? 0 : toolCall.index);
        if (toolCall != null && toolCall.index != index) {
            completeToolCall();
        }
        if (toolCall == null) {
            toolCall = new ToolCallInProgress(index);
        }
        ToolCallInProgress call = toolCall;
        String callId = OpenAiChatAnswers.text(piece.get("id"));
        call.id = callId == null ? call.id : callId;
        String name = OpenAiChatAnswers.text(piece.path("function").get("name"));
        call.name = name == null || name.isEmpty() ? call.name : name;
        String arguments = OpenAiChatAnswers.text(piece.path("function").get("arguments"));
        if (arguments != null && !arguments.isEmpty()) {
            call.arguments.append(arguments);
            PartialToolCall partial = PartialToolCall.builder().index(index).id(call.id).name(call.name)
                    .partialArguments(arguments).build();
            call(() -> handler.onPartialToolCall(partial, new PartialToolCallContext(handle)));
        }
    }

    private void completeToolCall() {
        ToolExecutionRequest request = ToolExecutionRequest.builder().id(toolCall.id).name(toolCall.name)
                .arguments(toolCall.arguments.length() == 0 ? "{}" : toolCall.arguments.toString()).build();
        toolCalls.add(request);
        CompleteToolCall complete = new CompleteToolCall(toolCall.index, request);
        toolCall = null;
        call(() -> handler.onCompleteToolCall(complete));
    }

    boolean cancelled() {
        return handle.isCancelled();
    }

    /** The gateway's send returned: the whole response, the stream's error, or nothing after a cancel. */
    void finish() {
        if (handle.isCancelled()) {
            return;
        }
        if (error == null && !done) {
            error = new InternalServerException("The stream ended before its last event");
        }
        if (error != null) {
            handler.onError(error);
            return;
        }
        if (toolCall != null) {
            completeToolCall();
        }
        AiMessage.Builder ai = AiMessage.builder().text(text.length() == 0 ? null : text.toString());
        if (thinking.length() > 0) {
            ai.thinking(thinking.toString());
        }
        if (!toolCalls.isEmpty()) {
            ai.toolExecutionRequests(toolCalls);
        }
        ChatResponse response = ChatResponse.builder().aiMessage(ai.build())
                .metadata(ChatResponseMetadata.builder().id(id).modelName(model).tokenUsage(usage)
                        .finishReason(finishReason).build())
                .build();
        handler.onCompleteResponse(response);
    }

    /** A handler that throws on a partial result does not end the stream (as in LangChain4j's own models). */
    private static void call(Runnable callback) {
        try {
            callback.run();
        } catch (RuntimeException e) {
            LOG.warn("A streaming handler failed on a partial response; the stream goes on", e);
        }
    }

    /** A tool call whose arguments are still arriving. */
    private static final class ToolCallInProgress {
        private final int index;
        private String id;
        private String name;
        private final StringBuilder arguments = new StringBuilder();

        ToolCallInProgress(int index) {
            this.index = index;
        }
    }

    private static final class Handle implements StreamingHandle {
        private volatile Runnable cancel;
        private volatile boolean cancelled;

        @Override
        public void cancel() {
            cancelled = true;
            Runnable stop = cancel;
            if (stop != null) {
                stop.run();
            }
        }

        @Override
        public boolean isCancelled() {
            return cancelled;
        }
    }
}
