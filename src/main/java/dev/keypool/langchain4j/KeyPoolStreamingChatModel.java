package dev.keypool.langchain4j;

import java.util.List;
import java.util.concurrent.Executor;

import dev.langchain4j.model.chat.StreamingChatModel;
import dev.langchain4j.model.chat.listener.ChatModelListener;
import dev.langchain4j.model.chat.request.ChatRequest;
import dev.langchain4j.model.chat.request.ChatRequestParameters;
import dev.langchain4j.model.chat.response.StreamingChatResponseHandler;

/**
 * A LangChain4j {@link StreamingChatModel} served by KeyPool's pipeline in this JVM: the provider's events reach the
 * handler as they arrive (partial responses, partial and complete tool calls, then the whole response), relayed by the
 * gateway core without an HTTP hop. Before the first event a failing key or channel is passed over as for any request;
 * after it a broken stream ends with {@code onError}. The handle of each partial response cancels the stream.
 *
 * <p>{@code chat} returns at once: the request runs on a thread of {@code executor} (by default a cached pool of the
 * CamelContext's, virtual threads where Camel makes them), which it holds while the stream lasts.
 */
public final class KeyPoolStreamingChatModel implements StreamingChatModel {

    private final KeyPoolChat chat;
    private final List<ChatModelListener> listeners;
    private final Executor executor;

    private KeyPoolStreamingChatModel(Builder builder) {
        this.chat = builder.chat();
        this.listeners = builder.listeners;
        this.executor = builder.executor != null ? builder.executor
                : chat.context.getExecutorServiceManager().newCachedThreadPool(this, "KeyPoolStreamingChatModel");
    }

    public static Builder builder() {
        return new Builder();
    }

    @Override
    public void doChat(ChatRequest request, StreamingChatResponseHandler handler) {
        OpenAiChatStream stream = new OpenAiChatStream(chat.mapper, handler);
        executor.execute(() -> {
            try {
                chat.send(request, stream);
            } catch (Exception e) {
                if (!stream.cancelled()) {
                    handler.onError(e instanceof RuntimeException runtime ? runtime : KeyPoolErrors.toLangChain4j(e));
                }
                return;
            }
            stream.finish();
        });
    }

    @Override
    public ChatRequestParameters defaultRequestParameters() {
        return chat.defaults;
    }

    @Override
    public List<ChatModelListener> listeners() {
        return listeners;
    }

    /** Builds a {@link KeyPoolStreamingChatModel}. */
    public static final class Builder extends KeyPoolModelBuilder<Builder> {

        private Executor executor;

        private Builder() {
        }

        /** Where each stream is read; one thread per stream while it lasts. */
        public Builder executor(Executor executor) {
            this.executor = executor;
            return this;
        }

        public KeyPoolStreamingChatModel build() {
            return new KeyPoolStreamingChatModel(this);
        }
    }
}
