package dev.keypool.langchain4j;

import java.util.List;

import dev.langchain4j.model.chat.ChatModel;
import dev.langchain4j.model.chat.listener.ChatModelListener;
import dev.langchain4j.model.chat.request.ChatRequest;
import dev.langchain4j.model.chat.request.ChatRequestParameters;
import dev.langchain4j.model.chat.response.ChatResponse;

/**
 * A LangChain4j {@link ChatModel} served by KeyPool's pipeline in this JVM: each request goes through the key pools,
 * quotas, tenant limits, breakers and fallback chains of keypool.yaml, with no HTTP hop between the application and
 * the gateway (design §13). Swap it in where an {@code OpenAiChatModel} was:
 *
 * <pre>{@code
 * ChatModel model = KeyPoolChatModel.builder().camelContext(context).modelName("gpt-4o-mini").build();
 * }</pre>
 *
 * The gateway's errors come as LangChain4j's exceptions: {@code RateLimitException} (429: no key had room after the
 * walk), {@code InternalServerException} (503: no channel could serve), {@code InvalidRequestException} (400) …, each
 * with the {@link dev.keypool.component.KeyPoolException} as cause.
 */
public final class KeyPoolChatModel implements ChatModel {

    private final KeyPoolChat chat;
    private final List<ChatModelListener> listeners;

    private KeyPoolChatModel(Builder builder) {
        this.chat = builder.chat();
        this.listeners = builder.listeners;
    }

    public static Builder builder() {
        return new Builder();
    }

    @Override
    public ChatResponse doChat(ChatRequest request) {
        String answer;
        try {
            answer = chat.send(request, null);
            return OpenAiChatAnswers.toResponse(chat.mapper.readTree(answer));
        } catch (RuntimeException e) {
            throw e;
        } catch (Exception e) {
            throw KeyPoolErrors.toLangChain4j(e);
        }
    }

    @Override
    public ChatRequestParameters defaultRequestParameters() {
        return chat.defaults;
    }

    @Override
    public List<ChatModelListener> listeners() {
        return listeners;
    }

    /** Builds a {@link KeyPoolChatModel}. */
    public static final class Builder extends KeyPoolModelBuilder<Builder> {

        private Builder() {
        }

        public KeyPoolChatModel build() {
            return new KeyPoolChatModel(this);
        }
    }
}
