package dev.keypool.it;

import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.openai.client.OpenAIClient;
import com.openai.client.okhttp.OpenAIOkHttpClient;
import com.openai.core.JsonValue;
import com.openai.core.http.HttpResponseFor;
import com.openai.core.http.StreamResponse;
import com.openai.models.FunctionDefinition;
import com.openai.models.FunctionParameters;
import com.openai.models.chat.completions.ChatCompletion;
import com.openai.models.chat.completions.ChatCompletionChunk;
import com.openai.models.chat.completions.ChatCompletionCreateParams;
import com.openai.models.chat.completions.ChatCompletionMessageFunctionToolCall;
import com.openai.models.chat.completions.ChatCompletionStreamOptions;
import com.openai.models.chat.completions.ChatCompletionToolMessageParam;
import dev.keypool.testing.FakeUpstream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The official OpenAI Java SDK against a gateway whose only channel speaks Anthropic's Messages: its chat completions
 * are translated to /messages and the answers back (design §17).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class OpenAiOverAnthropicSdkTest extends GatewayTestSupport {

    private static final ObjectMapper JSON = new ObjectMapper();

    private OpenAIClient client;

    @Override
    protected String keypoolYaml() {
        return """
                channels:
                  - name: claude
                    baseUrl: UPSTREAM
                    models: [claude-pool]
                    apis: [messages]
                    auth: x-api-key
                    keys:
                      - key: sk-ant-pool
                """;
    }

    private OpenAIClient client() {
        if (client == null) {
            client = OpenAIOkHttpClient.builder().baseUrl(url("/v1")).apiKey("client-token").maxRetries(0).build();
        }
        return client;
    }

    @AfterAll
    void closeClient() {
        if (client != null) {
            client.close();
        }
    }

    private static ChatCompletionCreateParams.Builder params() {
        return ChatCompletionCreateParams.builder().model("claude-pool").addSystemMessage("Be brief.").addUserMessage("Say hi");
    }

    private static FunctionDefinition weather() {
        return FunctionDefinition.builder().name("get_weather").description("The weather in a city")
                .parameters(FunctionParameters.builder().putAdditionalProperty("type", JsonValue.from("object"))
                        .putAdditionalProperty("properties", JsonValue.from(Map.of("city", Map.of("type", "string"))))
                        .build())
                .build();
    }

    private JsonNode sentUpstream(int index) throws Exception {
        return JSON.readTree(upstream.received().get(index).body());
    }

    @Test
    void should_answer_a_chat_completion_from_an_anthropic_channel() throws Exception {
        HttpResponseFor<ChatCompletion> raw = client().chat().completions().withRawResponse().create(params().build());
        ChatCompletion completion = raw.parse();

        assertThat(completion.choices().get(0).message().content()).hasValueSatisfying(t -> assertThat(t).startsWith("fake answer"));
        assertThat(completion.choices().get(0).finishReason()).isEqualTo(ChatCompletion.Choice.FinishReason.STOP);
        // Anthropic's input, cache-write and cache-read tokens are OpenAI's prompt tokens
        assertThat(completion.usage().orElseThrow().promptTokens()).isEqualTo(11 + 2 + 3);
        assertThat(completion.usage().orElseThrow().completionTokens()).isEqualTo(7);
        assertThat(raw.headers().values("X-KeyPool-Translated")).containsExactly("openai->anthropic");
        FakeUpstream.Received received = upstream.received().get(0);
        assertThat(received.path()).isEqualTo("/v1/messages");
        assertThat(received.headers().get("x-api-key")).isEqualTo("sk-ant-pool");
        assertThat(received.headers().get("anthropic-version")).isEqualTo("2023-06-01");
        JsonNode sent = sentUpstream(0);
        assertThat(sent.path("system").asText()).isEqualTo("Be brief.");
        assertThat(sent.path("messages").get(0).path("content").get(0).path("text").asText()).isEqualTo("Say hi");
        assertThat(sent.path("max_tokens").asLong()).isEqualTo(4096);   // keypool.translate.default-max-tokens
    }

    @Test
    void should_stream_chat_chunks_with_the_usage_asked_for() throws Exception {
        upstream.streamEvents(3, 5);
        StringBuilder text = new StringBuilder();
        List<ChatCompletionChunk.Choice.FinishReason> finishes = new ArrayList<>();
        List<Long> completionTokens = new ArrayList<>();

        try (StreamResponse<ChatCompletionChunk> stream = client().chat().completions().createStreaming(params()
                .streamOptions(ChatCompletionStreamOptions.builder().includeUsage(true).build()).build())) {
            stream.stream().forEach(chunk -> {
                chunk.choices().forEach(c -> {
                    c.delta().content().ifPresent(text::append);
                    c.finishReason().ifPresent(finishes::add);
                });
                chunk.usage().ifPresent(u -> completionTokens.add(u.completionTokens()));
            });
        }

        assertThat(text).hasToString("tok0 tok1 tok2 ");
        assertThat(finishes).containsExactly(ChatCompletionChunk.Choice.FinishReason.STOP);
        assertThat(completionTokens).containsExactly(3L);
        assertThat(sentUpstream(0).has("stream_options")).isFalse();
    }

    @Test
    void should_stamp_translated_answers_and_chunks_with_the_gateways_clock() {
        long now = clock.instant().getEpochSecond();
        List<Long> created = new ArrayList<>();

        ChatCompletion completion = client().chat().completions().create(params().build());
        try (StreamResponse<ChatCompletionChunk> stream = client().chat().completions().createStreaming(params().build())) {
            stream.stream().forEach(chunk -> created.add(chunk.created()));
        }

        // Anthropic's answers carry no time: OpenAI's created is the gateway's (a test clock far from the machine's)
        assertThat(completion.created()).isEqualTo(now);
        assertThat(created).isNotEmpty().containsOnly(now);
    }

    @Test
    void should_round_trip_tool_calls_through_an_anthropic_channel() throws Exception {
        ChatCompletion asks = client().chat().completions().create(params().addFunctionTool(weather()).build());

        assertThat(asks.choices().get(0).finishReason()).isEqualTo(ChatCompletion.Choice.FinishReason.TOOL_CALLS);
        ChatCompletionMessageFunctionToolCall call = asks.choices().get(0).message().toolCalls().orElseThrow().get(0)
                .asFunction();
        assertThat(call.function().name()).isEqualTo("get_weather");
        assertThat(JSON.readTree(call.function().arguments())).isEqualTo(JSON.readTree(FakeUpstream.TOOL_ARGUMENTS));
        assertThat(sentUpstream(0).path("tools").get(0).path("input_schema").path("properties").has("city")).isTrue();

        ChatCompletion answer = client().chat().completions().create(params().addFunctionTool(weather())
                .addMessage(asks.choices().get(0).message())
                .addMessage(ChatCompletionToolMessageParam.builder().toolCallId(call.id()).content("18 degrees").build())
                .build());

        assertThat(answer.choices().get(0).message().content()).contains("the tool said 18 degrees");
        JsonNode turns = sentUpstream(1).path("messages");
        JsonNode assistant = turns.get(turns.size() - 2);
        JsonNode result = turns.get(turns.size() - 1).path("content").get(0);
        assertThat(assistant.path("role").asText()).isEqualTo("assistant");
        JsonNode use = assistant.path("content").get(assistant.path("content").size() - 1);
        assertThat(use.path("type").asText()).isEqualTo("tool_use");
        assertThat(use.path("id").asText()).isEqualTo(call.id());
        assertThat(result.path("type").asText()).isEqualTo("tool_result");
        assertThat(result.path("tool_use_id").asText()).isEqualTo(call.id());
        assertThat(result.path("content").asText()).isEqualTo("18 degrees");
    }

    @Test
    void should_stream_a_tool_call_as_tool_call_deltas() {
        StringBuilder arguments = new StringBuilder();
        List<String> names = new ArrayList<>();
        List<ChatCompletionChunk.Choice.FinishReason> finishes = new ArrayList<>();

        try (StreamResponse<ChatCompletionChunk> stream = client().chat().completions()
                .createStreaming(params().addFunctionTool(weather()).build())) {
            stream.stream().forEach(chunk -> chunk.choices().forEach(c -> {
                c.delta().toolCalls().ifPresent(calls -> calls.forEach(call -> call.function().ifPresent(f -> {
                    f.name().ifPresent(names::add);
                    f.arguments().ifPresent(arguments::append);
                })));
                c.finishReason().ifPresent(finishes::add);
            }));
        }

        assertThat(names).containsExactly("get_weather");
        assertThat(arguments).hasToString(FakeUpstream.TOOL_ARGUMENTS);
        assertThat(finishes).containsExactly(ChatCompletionChunk.Choice.FinishReason.TOOL_CALLS);
    }

    @Test
    void should_answer_a_provider_error_in_openai_shape() throws Exception {
        upstream.answer("sk-ant-pool", 400);
        try {
            HttpResponse<String> response = post("/v1/chat/completions",
                    "{\"model\":\"claude-pool\",\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}");

            assertThat(response.statusCode()).isEqualTo(400);
            JsonNode error = JSON.readTree(response.body()).path("error");
            assertThat(error.path("message").asText()).isEqualTo("upstream said 400");
            assertThat(error.path("type").asText()).isEqualTo("api_error");
            assertThat(response.headers().firstValue("X-KeyPool-Translated")).contains("openai->anthropic");
        } finally {
            upstream.healthy("sk-ant-pool");
        }
    }
}
