package dev.keypool.it;

import java.util.List;

import dev.langchain4j.data.embedding.Embedding;
import dev.langchain4j.model.chat.response.ChatResponse;
import dev.langchain4j.model.openai.OpenAiChatModel;
import dev.langchain4j.model.openai.OpenAiEmbeddingModel;
import dev.langchain4j.model.output.Response;
import dev.langchain4j.data.message.UserMessage;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** A real OpenAI client library, written by nobody here, pointed at the gateway's base URL. */
class LangChain4jClientTest extends GatewayTestSupport {

    @Override
    protected String keypoolYaml() {
        return """
                channels:
                  - name: alpha
                    baseUrl: UPSTREAM
                    models: ["*"]
                    keys:
                      - key: sk-alpha-limited
                      - key: sk-alpha-2
                """;
    }

    @Test
    void should_serve_langchain4j_chat_across_a_rate_limited_key() {
        upstream.answer("sk-alpha-limited", 429, "30", null);
        OpenAiChatModel model = OpenAiChatModel.builder()
                .baseUrl(url("/v1"))
                .apiKey("client-token")
                .modelName("gpt-4o-mini")
                .maxRetries(0)
                .build();

        ChatResponse response = model.chat(UserMessage.from("Say hi"));

        assertThat(response.aiMessage().text()).startsWith("fake answer");
        assertThat(response.tokenUsage().inputTokenCount()).isEqualTo(11);
        assertThat(response.tokenUsage().outputTokenCount()).isEqualTo(7);
        assertThat(upstream.hits("sk-alpha-limited")).isEqualTo(1);
        assertThat(upstream.hits("sk-alpha-2")).isEqualTo(1);
    }

    @Test
    void should_serve_langchain4j_embeddings() {
        OpenAiEmbeddingModel model = OpenAiEmbeddingModel.builder()
                .baseUrl(url("/v1"))
                .apiKey("client-token")
                .modelName("text-embedding-3-small")
                .maxRetries(0)
                .build();

        Response<Embedding> response = model.embed("hello");

        assertThat(response.content().vector()).containsExactly(0.1f, 0.2f, 0.3f);
        assertThat(upstream.received()).extracting(r -> r.path()).containsExactly("/v1/embeddings");
        assertThat(List.of(response.tokenUsage().inputTokenCount())).containsExactly(5);
    }
}
