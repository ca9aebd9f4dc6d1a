package dev.keypool.langchain4j;

import java.util.ArrayList;
import java.util.List;

import com.fasterxml.jackson.databind.JsonNode;
import dev.langchain4j.agent.tool.ToolExecutionRequest;
import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.model.chat.response.ChatResponse;
import dev.langchain4j.model.chat.response.ChatResponseMetadata;
import dev.langchain4j.model.output.FinishReason;
import dev.langchain4j.model.output.TokenUsage;

/**
 * An OpenAI chat completion (the gateway's answer, translated already where the channel speaks Anthropic's format) as
 * LangChain4j's {@link ChatResponse}: the AI message with its text and tool execution requests, the finish reason, the
 * token usage, the answer's id and model.
 */
final class OpenAiChatAnswers {

    private OpenAiChatAnswers() {
    }

    static ChatResponse toResponse(JsonNode answer) {
        JsonNode choice = answer.path("choices").path(0);
        JsonNode message = choice.path("message");
        List<ToolExecutionRequest> calls = new ArrayList<>();
        for (JsonNode call : message.path("tool_calls")) {
            calls.add(ToolExecutionRequest.builder()
                    .id(text(call.get("id")))
                    .name(call.path("function").path("name").asText())
                    .arguments(call.path("function").path("arguments").asText("{}"))
                    .build());
        }
        AiMessage.Builder ai = AiMessage.builder().text(text(message.get("content")));
        String reasoning = text(message.get("reasoning_content"));
        if (reasoning != null) {
            ai.thinking(reasoning);
        }
        if (!calls.isEmpty()) {
            ai.toolExecutionRequests(calls);
        }
        return ChatResponse.builder()
                .aiMessage(ai.build())
                .metadata(ChatResponseMetadata.builder()
                        .id(text(answer.get("id")))
                        .modelName(text(answer.get("model")))
                        .tokenUsage(usage(answer.get("usage")))
                        .finishReason(finishReason(text(choice.get("finish_reason"))))
                        .build())
                .build();
    }

    static TokenUsage usage(JsonNode usage) {
        if (usage == null || !usage.isObject()) {
            return null;
        }
        return new TokenUsage(integer(usage.get("prompt_tokens")), integer(usage.get("completion_tokens")),
                integer(usage.get("total_tokens")));
    }

    static FinishReason finishReason(String reason) {
        if (reason == null) {
            return null;
        }
        return switch (reason) {
            case "stop" -> FinishReason.STOP;
            case "length" -> FinishReason.LENGTH;
            case "tool_calls", "function_call" -> FinishReason.TOOL_EXECUTION;
            case "content_filter" -> FinishReason.CONTENT_FILTER;
            default -> FinishReason.OTHER;
        };
    }

    static String text(JsonNode node) {
        return node == null || node.isNull() ? null : node.asText();
    }

    private static Integer integer(JsonNode node) {
        return node == null || !node.isNumber() ? null : node.asInt();
    }
}
