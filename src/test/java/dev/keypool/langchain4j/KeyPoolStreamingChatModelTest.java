package dev.keypool.langchain4j;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import dev.keypool.component.KeyPoolException;
import dev.keypool.testing.FakeUpstream;
import dev.langchain4j.agent.tool.ToolSpecification;
import dev.langchain4j.data.message.UserMessage;
import dev.langchain4j.exception.InternalServerException;
import dev.langchain4j.model.chat.request.ChatRequest;
import dev.langchain4j.model.chat.request.json.JsonObjectSchema;
import dev.langchain4j.model.chat.response.ChatResponse;
import dev.langchain4j.model.chat.response.CompleteToolCall;
import dev.langchain4j.model.chat.response.PartialResponse;
import dev.langchain4j.model.chat.response.PartialResponseContext;
import dev.langchain4j.model.chat.response.PartialToolCall;
import dev.langchain4j.model.chat.response.StreamingChatResponseHandler;
import dev.langchain4j.model.output.FinishReason;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * KeyPoolStreamingChatModel's handler calls, without AiServices: partial and complete tool calls, a stream from an
 * Anthropic channel translated on the way, a cancel through the streaming handle, and a gateway error.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class KeyPoolStreamingChatModelTest {

    private LangChain4jHost host;

    /** Records every callback; {@code done} completes with the response or the error. */
    private static final class Recorder implements StreamingChatResponseHandler {
        final List<String> partials = new CopyOnWriteArrayList<>();
        final List<PartialToolCall> partialToolCalls = new CopyOnWriteArrayList<>();
        final List<CompleteToolCall> completeToolCalls = new CopyOnWriteArrayList<>();
        final CompletableFuture<ChatResponse> done = new CompletableFuture<>();
        volatile boolean cancelOnFirst;

        @Override
        public void onPartialResponse(PartialResponse partial, PartialResponseContext context) {
            partials.add(partial.text());
            if (cancelOnFirst) {
                context.streamingHandle().cancel();
            }
        }

        @Override
        public void onPartialToolCall(PartialToolCall partialToolCall) {
            partialToolCalls.add(partialToolCall);
        }

        @Override
        public void onCompleteToolCall(CompleteToolCall completeToolCall) {
            completeToolCalls.add(completeToolCall);
        }

        @Override
        public void onCompleteResponse(ChatResponse response) {
            done.complete(response);
        }

        @Override
        public void onError(Throwable error) {
            done.completeExceptionally(error);
        }
    }

    @BeforeAll
    void start() throws Exception {
        host = new LangChain4jHost("""
                channels:
                  - name: tools
                    baseUrl: UPSTREAM
                    models: [tool-model]
                    keys:
                      - key: sk-tools-1
                  - name: claude
                    baseUrl: UPSTREAM
                    models: [claude-model]
                    apis: [messages]
                    auth: x-api-key
                    keys:
                      - key: sk-claude-1
                  - name: long
                    baseUrl: UPSTREAM
                    models: [long-model]
                    keys:
                      - key: sk-long-1
                  - name: down
                    baseUrl: UPSTREAM
                    models: [down-model]
                    keys:
                      - key: sk-down-1
                      - key: sk-down-2
                """);
    }

    @AfterAll
    void stop() {
        host.close();
    }

    @Test
    void should_hand_over_each_piece_of_a_tool_call_then_the_whole_call() throws Exception {
        ToolSpecification weather = ToolSpecification.builder().name("weather").description("The weather in a city")
                .parameters(JsonObjectSchema.builder().addStringProperty("city").addStringProperty("unit").build()).build();
        Recorder recorder = new Recorder();

        host.streamingModel("tool-model").build().chat(ChatRequest.builder()
                .messages(UserMessage.from("Weather in Paris?")).toolSpecifications(weather).build(), recorder);

        ChatResponse response = recorder.done.get(20, TimeUnit.SECONDS);
        // the fake sends the arguments three characters at a time
        assertThat(recorder.partialToolCalls).hasSize((FakeUpstream.TOOL_ARGUMENTS.length() + 2) / 3)
                .allSatisfy(p -> assertThat(p.name()).isEqualTo("weather"));
        assertThat(recorder.partialToolCalls.stream().map(PartialToolCall::partialArguments).reduce("", String::concat))
                .isEqualTo(FakeUpstream.TOOL_ARGUMENTS);
        assertThat(recorder.completeToolCalls).singleElement().satisfies(call -> {
            assertThat(call.index()).isZero();
            assertThat(call.toolExecutionRequest().id()).startsWith("call_fake_");
            assertThat(call.toolExecutionRequest().arguments()).isEqualTo(FakeUpstream.TOOL_ARGUMENTS);
        });
        assertThat(response.aiMessage().toolExecutionRequests()).singleElement()
                .satisfies(request -> assertThat(request.name()).isEqualTo("weather"));
        assertThat(response.finishReason()).isEqualTo(FinishReason.TOOL_EXECUTION);
        assertThat(response.tokenUsage().totalTokenCount()).isEqualTo(39);
    }

    @Test
    void should_stream_a_model_of_an_anthropic_channel_translated_event_by_event() throws Exception {
        Recorder recorder = new Recorder();

        host.streamingModel("claude-model").build().chat("Tell me a story", recorder);

        ChatResponse response = recorder.done.get(20, TimeUnit.SECONDS);
        assertThat(recorder.partials).containsExactly("tok0 ", "tok1 ", "tok2 ", "tok3 ", "tok4 ");
        assertThat(response.aiMessage().text()).isEqualTo("tok0 tok1 tok2 tok3 tok4 ");
        assertThat(response.finishReason()).isEqualTo(FinishReason.STOP);
        // the provider was asked in Anthropic's format, on its /messages path, with its key as x-api-key
        FakeUpstream.Received call = host.upstream.received().stream().filter(r -> r.key().equals("sk-claude-1"))
                .findFirst().orElseThrow();
        assertThat(call.path()).isEqualTo("/v1/messages");
        assertThat(call.body()).contains("\"stream\":true").doesNotContain("stream_options");
    }

    @Test
    void should_stop_the_provider_stream_when_the_handle_cancels_it() {
        host.upstream.streamEvents(100, 50);
        try {
            Recorder recorder = new Recorder();
            recorder.cancelOnFirst = true;
            int cancelledBefore = host.upstream.streamsCancelled();

            host.streamingModel("long-model").build().chat("A long story, please", recorder);

            // the provider's connection is closed: the key and the thread are free long before 100 events
            await().atMost(Duration.ofSeconds(10)).until(() -> host.upstream.streamsCancelled() > cancelledBefore);
            assertThat(recorder.partials).hasSizeLessThan(100);
            assertThat(recorder.done).isNotDone();
        } finally {
            host.upstream.streamEvents(5, 20);
        }
    }

    @Test
    void should_report_no_channel_available_to_on_error_as_an_internal_server_exception() {
        host.upstream.answer("sk-down-1", 500).answer("sk-down-2", 500);
        Recorder recorder = new Recorder();

        host.streamingModel("down-model").build().chat("hi", recorder);

        await().atMost(Duration.ofSeconds(20)).until(recorder.done::isDone);
        assertThat(recorder.done).failsWithin(Duration.ZERO).withThrowableThat().havingCause()
                .isInstanceOf(InternalServerException.class)
                .havingCause().isInstanceOfSatisfying(KeyPoolException.class, e -> {
                    assertThat(e.getStatus()).isEqualTo(503);
                    assertThat(e.getCode()).isEqualTo("no_channel_available");
                });
        assertThat(recorder.partials).isEmpty();
    }
}
