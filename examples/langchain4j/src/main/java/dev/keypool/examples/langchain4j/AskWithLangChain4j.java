package dev.keypool.examples.langchain4j;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import dev.keypool.langchain4j.KeyPoolChatModel;
import dev.keypool.langchain4j.KeyPoolStreamingChatModel;
import dev.langchain4j.model.chat.response.ChatResponse;
import dev.langchain4j.service.AiServices;
import dev.langchain4j.service.TokenStream;
import org.apache.camel.CamelContext;
import org.apache.camel.impl.DefaultCamelContext;

/**
 * A plain Java application with LangChain4j's AiServices, whose models are KeyPool's: the one bean swapped for an
 * OpenAiChatModel. Every question goes through KeyPool's key pool in this JVM (no HTTP hop to a gateway): the first one
 * meets the key that answers 429, which is cooled, and the next key answers; the streamed one comes token by token.
 */
public final class AskWithLangChain4j {

    /** What the application asks; the interface is the application's, LangChain4j implements it. */
    interface Assistant {
        String chat(String question);
    }

    interface StreamingAssistant {
        TokenStream chat(String question);
    }

    private AskWithLangChain4j() {
    }

    public static void main(String[] args) throws Exception {
        try (CamelContext context = new DefaultCamelContext()) {
            // KeyPool's settings, as in an application.properties: its channels and keys, and where it keeps quota counts
            context.getPropertiesComponent().addInitialProperty("keypool.config", "keypool.yaml");
            context.getPropertiesComponent().addInitialProperty("state.dir", "target/keypool-state");
            context.start();

            Assistant assistant = AiServices.builder(Assistant.class)
                    .chatModel(KeyPoolChatModel.builder().camelContext(context).modelName("gpt-4o-mini").build())
                    .build();
            for (String question : List.of("What is a circuit breaker?", "What is a fallback chain?")) {
                System.out.println("Plain answer: " + assistant.chat(question));
            }

            StreamingAssistant streaming = AiServices.builder(StreamingAssistant.class)
                    .streamingChatModel(KeyPoolStreamingChatModel.builder().camelContext(context).modelName("gpt-4o-mini").build())
                    .build();
            List<String> parts = new ArrayList<>();
            CompletableFuture<ChatResponse> done = new CompletableFuture<>();
            streaming.chat("Tell me about key rotation.")
                    .onPartialResponse(parts::add)
                    .onCompleteResponse(done::complete)
                    .onError(done::completeExceptionally)
                    .start();
            ChatResponse response = done.get(30, TimeUnit.SECONDS);
            System.out.println("Streamed answer in " + parts.size() + " parts: " + response.aiMessage().text());
        }
    }
}
