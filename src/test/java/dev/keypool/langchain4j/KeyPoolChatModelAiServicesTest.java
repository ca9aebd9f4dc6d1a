package dev.keypool.langchain4j;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import dev.keypool.testing.FakeUpstream;
import dev.langchain4j.agent.tool.P;
import dev.langchain4j.agent.tool.Tool;
import dev.langchain4j.model.chat.response.ChatResponse;
import dev.langchain4j.model.output.FinishReason;
import dev.langchain4j.service.AiServices;
import dev.langchain4j.service.Result;
import dev.langchain4j.service.TokenStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * LangChain4j's AiServices on KeyPoolChatModel and KeyPoolStreamingChatModel, in a plain application's CamelContext:
 * a plain interface, a TokenStream, and a tool the model asks for, each served through KeyPool's key pools against a
 * fake provider (each test its own channel: one gateway for the class).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class KeyPoolChatModelAiServicesTest {

    private LangChain4jHost host;

    interface Assistant {
        String chat(String question);
    }

    interface StreamingAssistant {
        TokenStream chat(String question);
    }

    interface WeatherAssistant {
        Result<String> ask(String question);
    }

    /** The tool the fake provider asks for: its first tool, with {@link FakeUpstream#TOOL_ARGUMENTS}. */
    static final class Weather {
        final List<String> calls = new CopyOnWriteArrayList<>();

        @Tool("The current weather in a city")
        String weather(@P(name = "city", value = "the city") String city,
                @P(name = "unit", value = "celsius or fahrenheit") String unit) {
            calls.add(city + "/" + unit);
            return "sunny, 21 degrees " + unit + " in " + city;
        }
    }

    @BeforeAll
    void start() throws Exception {
        host = new LangChain4jHost("""
                channels:
                  - name: plain
                    baseUrl: UPSTREAM
                    models: [plain-model]
                    cooldown: 60s
                    keys:
                      - key: sk-plain-429
                      - key: sk-plain-ok
                  - name: streamed
                    baseUrl: UPSTREAM
                    models: [stream-model]
                    cooldown: 60s
                    keys:
                      - key: sk-stream-429
                      - key: sk-stream-ok
                  - name: tools
                    baseUrl: UPSTREAM
                    models: [tool-model]
                    keys:
                      - key: sk-tools-1
                """);
    }

    @AfterAll
    void stop() {
        host.close();
    }

    @Test
    void should_answer_an_ai_service_and_cool_the_key_that_answered_429() {
        host.upstream.answer("sk-plain-429", 429);
        Assistant assistant = AiServices.builder(Assistant.class)
                .chatModel(host.chatModel("plain-model").build()).build();

        String first = assistant.chat("Say hi");
        String second = assistant.chat("Say hi again");

        assertThat(first).startsWith("fake answer");
        assertThat(second).startsWith("fake answer").isNotEqualTo(first);
        // the 429 key was tried once, then cooled: the second question went straight to the good key
        assertThat(host.upstream.hits("sk-plain-429")).isEqualTo(1);
        assertThat(host.upstream.hits("sk-plain-ok")).isEqualTo(2);
        assertThat(host.upstream.received()).filteredOn(r -> r.key().equals("sk-plain-ok")).first()
                .satisfies(r -> assertThat(r.body()).contains("\"model\":\"plain-model\"")
                        .contains("{\"role\":\"user\",\"content\":\"Say hi\"}"));
    }

    @Test
    void should_stream_a_token_stream_event_by_event_past_a_rate_limited_key() throws Exception {
        host.upstream.answer("sk-stream-429", 429);
        StreamingAssistant assistant = AiServices.builder(StreamingAssistant.class)
                .streamingChatModel(host.streamingModel("stream-model").build()).build();
        List<String> partials = new CopyOnWriteArrayList<>();
        int completedBefore = host.upstream.streamsCompleted();
        List<Integer> completedUpstreamAtFirstPartial = new CopyOnWriteArrayList<>();
        CompletableFuture<ChatResponse> done = new CompletableFuture<>();

        // 200 ms between the provider's events: the first one reaches the application long before the last is sent
        host.upstream.streamEvents(5, 200);
        ChatResponse response;
        try {
            assistant.chat("Tell me a story")
                    .onPartialResponse(partial -> {
                        if (partials.isEmpty()) {
                            completedUpstreamAtFirstPartial.add(host.upstream.streamsCompleted());
                        }
                        partials.add(partial);
                    })
                    .onCompleteResponse(done::complete)
                    .onError(done::completeExceptionally)
                    .start();
            response = done.get(30, TimeUnit.SECONDS);
        } finally {
            host.upstream.streamEvents(5, 20);
        }
        assertThat(partials).containsExactly("tok0 ", "tok1 ", "tok2 ", "tok3 ", "tok4 ");
        // the first token reached the application while the provider was still streaming: relayed, not buffered
        assertThat(completedUpstreamAtFirstPartial).containsExactly(completedBefore);
        assertThat(response.aiMessage().text()).isEqualTo("tok0 tok1 tok2 tok3 tok4 ");
        assertThat(response.finishReason()).isEqualTo(FinishReason.STOP);
        assertThat(response.tokenUsage().inputTokenCount()).isEqualTo(11);
        assertThat(response.tokenUsage().outputTokenCount()).isEqualTo(5);
        assertThat(host.upstream.hits("sk-stream-429")).isEqualTo(1);
        assertThat(host.upstream.hits("sk-stream-ok")).isEqualTo(1);
    }

    @Test
    void should_run_the_tool_the_model_asks_for_and_send_its_result_back() {
        Weather weather = new Weather();
        WeatherAssistant assistant = AiServices.builder(WeatherAssistant.class)
                .chatModel(host.chatModel("tool-model").build()).tools(weather).build();

        Result<String> answer = assistant.ask("What is the weather in Paris?");

        assertThat(weather.calls).containsExactly("Paris/celsius");
        assertThat(answer.content()).isEqualTo("the tool said sunny, 21 degrees celsius in Paris");
        assertThat(answer.toolExecutions()).hasSize(1);
        // the second call carried the model's tool call and the tool's result, as OpenAI's chat API has them
        List<String> calls = host.upstream.received().stream().filter(r -> r.key().equals("sk-tools-1"))
                .map(FakeUpstream.Received::body).toList();
        assertThat(calls).hasSize(2);
        assertThat(calls.get(1)).contains("\"tool_calls\":[{\"id\":\"call_fake_").contains("\"name\":\"weather\"")
                .contains("\"role\":\"tool\"").contains("\"content\":\"sunny, 21 degrees celsius in Paris\"");
        assertThat(calls.get(0)).contains("\"tools\":[{\"type\":\"function\",\"function\":{\"name\":\"weather\"")
                .contains("\"description\":\"the city\"").contains("\"description\":\"celsius or fahrenheit\"");
    }
}
