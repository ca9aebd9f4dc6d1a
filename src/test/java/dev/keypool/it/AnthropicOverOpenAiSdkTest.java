package dev.keypool.it;

import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import com.anthropic.client.AnthropicClient;
import com.anthropic.client.okhttp.AnthropicOkHttpClient;
import com.anthropic.core.JsonValue;
import com.anthropic.core.http.HttpResponseFor;
import com.anthropic.core.http.StreamResponse;
import com.anthropic.models.messages.ContentBlockParam;
import com.anthropic.models.messages.Message;
import com.anthropic.models.messages.MessageCountTokensParams;
import com.anthropic.models.messages.MessageCreateParams;
import com.anthropic.models.messages.MessageTokensCount;
import com.anthropic.models.messages.RawMessageStreamEvent;
import com.anthropic.models.messages.StopReason;
import com.anthropic.models.messages.Tool;
import com.anthropic.models.messages.ToolResultBlockParam;
import com.anthropic.models.messages.ToolUseBlock;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.keypool.pool.Fingerprint;
import dev.keypool.testing.FakeUpstream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The official Anthropic Java SDK (what Claude Code speaks) against a gateway whose only channel speaks OpenAI's chat
 * format: its /v1/messages requests are translated to /chat/completions and the answers back (design §17).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class AnthropicOverOpenAiSdkTest extends GatewayTestSupport {

    private static final ObjectMapper JSON = new ObjectMapper();

    private AnthropicClient client;

    @Override
    protected String keypoolYaml() {
        return """
                channels:
                  - name: openai-pool
                    baseUrl: UPSTREAM
                    models: [gpt-pool]
                    apis: [chat]
                    keys:
                      - key: sk-openai-pool
                """;
    }

    private AnthropicClient client() {
        if (client == null) {
            client = AnthropicOkHttpClient.builder().baseUrl(url("")).apiKey("client-token").maxRetries(0).build();
        }
        return client;
    }

    @AfterAll
    void closeClient() {
        if (client != null) {
            client.close();
        }
    }

    private static MessageCreateParams.Builder params() {
        return MessageCreateParams.builder().model("gpt-pool").maxTokens(100).system("Be brief.").addUserMessage("Say hi");
    }

    private static Tool weatherTool() {
        return Tool.builder().name("get_weather").description("The weather in a city")
                .inputSchema(Tool.InputSchema.builder()
                        .properties(Tool.InputSchema.Properties.builder()
                                .putAdditionalProperty("city", JsonValue.from(Map.of("type", "string"))).build())
                        .required(List.of("city")).build())
                .build();
    }

    private JsonNode sentUpstream(int index) throws Exception {
        return JSON.readTree(upstream.received().get(index).body());
    }

    @Test
    void should_answer_a_message_from_an_openai_format_channel() throws Exception {
        long promptBefore = channel("openai-pool").pool().find(Fingerprint.of("sk-openai-pool")).orElseThrow()
                .stats().promptTokens();
        HttpResponseFor<Message> raw = client().messages().withRawResponse().create(params().build());
        Message message = raw.parse();

        assertThat(message.content()).hasSize(1);
        assertThat(message.content().get(0).asText().text()).startsWith("fake answer");
        assertThat(message.stopReason()).contains(StopReason.END_TURN);
        assertThat(message.usage().inputTokens()).isEqualTo(11);
        assertThat(message.usage().outputTokens()).isEqualTo(7);
        assertThat(raw.headers().values("X-KeyPool-Translated")).containsExactly("anthropic->openai");
        FakeUpstream.Received received = upstream.received().get(0);
        assertThat(received.path()).isEqualTo("/v1/chat/completions");
        assertThat(received.headers().contains("anthropic-version")).isFalse();
        JsonNode sent = sentUpstream(0);
        assertThat(sent.path("messages").get(0).path("role").asText()).isEqualTo("system");
        assertThat(sent.path("messages").get(0).path("content").asText()).isEqualTo("Be brief.");
        assertThat(sent.path("messages").get(1).path("content").asText()).isEqualTo("Say hi");
        assertThat(sent.path("max_tokens").asInt()).isEqualTo(100);
        // the key counted the tokens of the answer the provider really gave
        assertThat(channel("openai-pool").pool().find(Fingerprint.of("sk-openai-pool")).orElseThrow()
                .stats().promptTokens() - promptBefore).isEqualTo(11);
    }

    @Test
    void should_stream_a_message_as_anthropic_events() throws Exception {
        upstream.streamEvents(4, 5);
        List<String> types = new ArrayList<>();
        StringBuilder text = new StringBuilder();
        List<StopReason> stops = new ArrayList<>();
        List<Long> outputTokens = new ArrayList<>();

        try (StreamResponse<RawMessageStreamEvent> stream = client().messages().createStreaming(params().build())) {
            stream.stream().forEach(event -> {
                types.add(event.isMessageStart() ? "message_start" : event.isContentBlockStart() ? "content_block_start"
                        : event.isContentBlockDelta() ? "content_block_delta" : event.isContentBlockStop() ? "content_block_stop"
                        : event.isMessageDelta() ? "message_delta" : "message_stop");
                event.contentBlockDelta().flatMap(d -> d.delta().text()).ifPresent(t -> text.append(t.text()));
                event.messageDelta().ifPresent(d -> {
                    d.delta().stopReason().ifPresent(stops::add);
                    outputTokens.add(d.usage().outputTokens());
                });
            });
        }

        assertThat(types).containsExactly("message_start", "content_block_start", "content_block_delta",
                "content_block_delta", "content_block_delta", "content_block_delta", "content_block_stop", "message_delta",
                "message_stop");
        assertThat(text).hasToString("tok0 tok1 tok2 tok3 ");
        assertThat(stops).containsExactly(StopReason.END_TURN);
        assertThat(outputTokens).containsExactly(4L);
        assertThat(sentUpstream(0).path("stream_options").path("include_usage").asBoolean()).isTrue();
    }

    @Test
    void should_round_trip_a_tool_call_through_an_openai_format_channel() throws Exception {
        Message asks = client().messages().create(params().addTool(weatherTool()).build());

        assertThat(asks.stopReason()).contains(StopReason.TOOL_USE);
        ToolUseBlock use = asks.content().stream().flatMap(b -> b.toolUse().stream()).findFirst().orElseThrow();
        assertThat(use.name()).isEqualTo("get_weather");
        JsonNode input = JSON.valueToTree(use._input().convert(Map.class));
        assertThat(input).isEqualTo(JSON.readTree(FakeUpstream.TOOL_ARGUMENTS));
        JsonNode firstSent = sentUpstream(0);
        assertThat(firstSent.path("tools").get(0).path("function").path("name").asText()).isEqualTo("get_weather");
        assertThat(firstSent.path("tools").get(0).path("function").path("parameters").path("required").get(0).asText())
                .isEqualTo("city");

        Message answer = client().messages().create(params().addTool(weatherTool()).addMessage(asks)
                .addUserMessageOfContentBlockParams(List.of(ContentBlockParam.ofToolResult(
                        ToolResultBlockParam.builder().toolUseId(use.id()).content("18 degrees").build())))
                .build());

        assertThat(answer.stopReason()).contains(StopReason.END_TURN);
        assertThat(answer.content().get(0).asText().text()).isEqualTo("the tool said 18 degrees");
        JsonNode messages = sentUpstream(1).path("messages");
        JsonNode assistant = messages.get(messages.size() - 2);
        JsonNode tool = messages.get(messages.size() - 1);
        assertThat(assistant.path("tool_calls").get(0).path("id").asText()).isEqualTo(use.id());
        assertThat(assistant.path("tool_calls").get(0).path("function").path("name").asText()).isEqualTo("get_weather");
        assertThat(tool.path("role").asText()).isEqualTo("tool");
        assertThat(tool.path("tool_call_id").asText()).isEqualTo(use.id());
        assertThat(tool.path("content").asText()).isEqualTo("18 degrees");
    }

    @Test
    void should_stream_a_tool_call_as_input_json_deltas() {
        StringBuilder arguments = new StringBuilder();
        List<String> tools = new ArrayList<>();
        List<StopReason> stops = new ArrayList<>();

        try (StreamResponse<RawMessageStreamEvent> stream = client().messages()
                .createStreaming(params().addTool(weatherTool()).build())) {
            stream.stream().forEach(event -> {
                event.contentBlockStart().flatMap(s -> s.contentBlock().toolUse()).ifPresent(t -> tools.add(t.name()));
                event.contentBlockDelta().flatMap(d -> d.delta().inputJson()).ifPresent(j -> arguments.append(j.partialJson()));
                event.messageDelta().flatMap(d -> d.delta().stopReason()).ifPresent(stops::add);
            });
        }

        assertThat(tools).containsExactly("get_weather");
        assertThat(arguments).hasToString(FakeUpstream.TOOL_ARGUMENTS);
        assertThat(stops).containsExactly(StopReason.TOOL_USE);
    }

    @Test
    void should_count_tokens_locally_for_an_openai_format_channel() {
        MessageTokensCount count = client().messages().countTokens(
                MessageCountTokensParams.builder().model("gpt-pool").addUserMessage("Say hi to everyone here").build());

        assertThat(count.inputTokens()).isPositive();
        assertThat(upstream.received()).isEmpty();
    }

    @Test
    void should_end_a_stream_that_breaks_midway_with_anthropics_error_event() throws Exception {
        upstream.streamEvents(6, 5).cutStreamAfter("sk-openai-pool", 2);
        try {
            HttpResponse<String> response = post("/v1/messages", "{\"model\":\"gpt-pool\",\"max_tokens\":10,"
                    + "\"stream\":true,\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}");

            String[] events = response.body().strip().split("\n\n");
            assertThat(events[0]).startsWith("event: message_start\n");
            assertThat(response.body()).contains("\"text\":\"tok1 \"").doesNotContain("message_stop");
            String last = events[events.length - 1];
            assertThat(last).startsWith("event: error\ndata: ");
            JsonNode error = JSON.readTree(last.substring(last.indexOf("data: ") + 6));
            assertThat(error.path("type").asText()).isEqualTo("error");
            assertThat(error.path("error").path("type").asText()).isEqualTo("api_error");
            assertThat(response.headers().firstValue("X-KeyPool-Translated")).contains("anthropic->openai");
        } finally {
            upstream.healthy("sk-openai-pool");
        }
    }

    @Test
    void should_answer_a_provider_error_in_anthropic_shape() throws Exception {
        upstream.answer("sk-openai-pool", 400);
        try {
            HttpResponse<String> response = post("/v1/messages",
                    "{\"model\":\"gpt-pool\",\"max_tokens\":10,\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}");

            assertThat(response.statusCode()).isEqualTo(400);
            JsonNode body = JSON.readTree(response.body());
            assertThat(body.path("type").asText()).isEqualTo("error");
            assertThat(body.path("error").path("type").asText()).isEqualTo("invalid_request_error");
            assertThat(body.path("error").path("message").asText()).isEqualTo("upstream said 400");
            assertThat(response.headers().firstValue("X-KeyPool-Translated")).contains("anthropic->openai");
        } finally {
            upstream.healthy("sk-openai-pool");
        }
    }
}
