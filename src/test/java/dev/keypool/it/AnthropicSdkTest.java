package dev.keypool.it;

import java.util.ArrayList;
import java.util.List;

import com.anthropic.client.AnthropicClient;
import com.anthropic.client.okhttp.AnthropicOkHttpClient;
import com.anthropic.core.http.StreamResponse;
import com.anthropic.models.messages.Message;
import com.anthropic.models.messages.MessageCountTokensParams;
import com.anthropic.models.messages.MessageCreateParams;
import com.anthropic.models.messages.MessageTokensCount;
import com.anthropic.models.messages.RawMessageStreamEvent;
import dev.keypool.pool.ApiKey;
import dev.keypool.pool.Fingerprint;
import dev.keypool.pool.KeyState;
import dev.keypool.testing.FakeUpstream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The official Anthropic Java SDK (com.anthropic:anthropic-java) against /v1/messages, with the gateway as its base
 * URL (what ANTHROPIC_BASE_URL does). In every test but the pinned one, the pool's first key answers 429: the SDK
 * never sees it, the gateway cools that key and serves with the next. The tests share one gateway, each on a channel
 * claude of its own (its keys' states are the test's alone).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class AnthropicSdkTest extends GatewayTestSupport {

    private AnthropicClient client;

    /** Each test's own channel claude, named after the test and serving one model of that name; claude-backup behind. */
    @Override
    protected String keypoolYaml() {
        StringBuilder yaml = new StringBuilder("""
                channels:
                  - name: claude-backup
                    baseUrl: UPSTREAM
                    models: [backup-claude]
                    apis: [messages]
                    auth: x-api-key
                    keys:
                      - key: sk-ant-backup
                """);
        for (String test : testNames()) {
            yaml.append("""
                      - name: %1$s
                        baseUrl: UPSTREAM
                        models: [%1$s]
                        apis: [messages]
                        anthropicBeta: [prompt-caching-2024-07-31]
                        maxRetries: 2
                        fallback: [claude-backup]
                        keys:
                          - key: sk-ant-limited
                          - key: sk-ant-good
                    """.formatted(test));
        }
        return yaml.toString();
    }

    private AnthropicClient client() {
        if (client == null) {
            // no retries of its own: what the test sees is what the gateway did
            client = AnthropicOkHttpClient.builder().baseUrl(url("")).apiKey("client-token").maxRetries(0).build();
        }
        upstream.answer("sk-ant-limited", 429, "30", null);
        return client;
    }

    @AfterEach
    void closeClient() {
        if (client != null) {
            client.close();
            client = null;
        }
    }

    private static MessageCreateParams params(String model) {
        return MessageCreateParams.builder().model(model).maxTokens(100).addUserMessage("Say hi")
                .putAdditionalHeader("anthropic-version", "2023-06-01")
                .putAdditionalHeader("anthropic-beta", "prompt-caching-2024-07-31").build();
    }

    @Test
    void should_create_a_message_and_count_its_usage_with_the_cache_tokens() {
        Message message = client().messages().create(params(testName()));

        assertThat(message.content().get(0).asText().text()).startsWith("fake answer");
        assertThat(message.usage().inputTokens()).isEqualTo(11);
        assertRotatedPastTheLimitedKey();
        ApiKey good = key("sk-ant-good");
        assertThat(good.stats().promptTokens()).isEqualTo(11 + 2 + 3);
        assertThat(good.stats().completionTokens()).isEqualTo(7);
        // the client's version and beta headers went up; its x-api-key (the client's token) did not
        FakeUpstream.Received served = upstream.received().get(1);
        assertThat(served.path()).isEqualTo("/v1/messages");
        assertThat(served.headers().get("anthropic-version")).isEqualTo("2023-06-01");
        assertThat(served.headers().get("anthropic-beta")).isEqualTo("prompt-caching-2024-07-31");
        assertThat(served.headers().get("Authorization")).isEqualTo("Bearer sk-ant-good");
        assertThat(served.headers().contains("x-api-key")).isFalse();
    }

    @Test
    void should_stream_a_message_with_every_delta_and_count_its_usage() {
        upstream.streamEvents(8, 5);
        List<String> deltas = new ArrayList<>();
        List<Long> outputTokens = new ArrayList<>();
        List<Boolean> stops = new ArrayList<>();

        try (StreamResponse<RawMessageStreamEvent> stream = client().messages().createStreaming(params(testName()))) {
            stream.stream().forEach(event -> {
                event.contentBlockDelta().flatMap(d -> d.delta().text()).ifPresent(t -> deltas.add(t.text()));
                event.messageDelta().ifPresent(d -> outputTokens.add(d.usage().outputTokens()));
                stops.add(event.isMessageStop());
            });
        }

        assertThat(deltas).containsExactly("tok0 ", "tok1 ", "tok2 ", "tok3 ", "tok4 ", "tok5 ", "tok6 ", "tok7 ");
        assertThat(outputTokens).containsExactly(8L);
        assertThat(stops).last().isEqualTo(true);
        assertRotatedPastTheLimitedKey();
        ApiKey good = key("sk-ant-good");
        assertThat(good.stats().promptTokens()).isEqualTo(11 + 2 + 3);   // from message_start
        assertThat(good.stats().completionTokens()).isEqualTo(8);         // from message_delta
        assertThat(good.stats().streamCount()).isEqualTo(1);
        assertThat(good.inFlight()).isZero();
    }

    @Test
    void should_count_tokens() {
        MessageTokensCount count = client().messages().countTokens(
                MessageCountTokensParams.builder().model(testName()).addUserMessage("Say hi").build());

        assertThat(count.inputTokens()).isEqualTo(FakeUpstream.ANTHROPIC_COUNTED_TOKENS);
        assertRotatedPastTheLimitedKey();
        assertThat(upstream.received().get(1).path()).isEqualTo("/v1/messages/count_tokens");
    }

    @Test
    void should_fall_back_to_the_next_channel_when_the_primary_answers_529_overloaded() {
        upstream.answer("sk-ant-good", 529);

        Message message = client().messages().create(params(testName()));

        assertThat(message.id()).startsWith("msg_fake_");
        assertThat(upstream.hits("sk-ant-limited")).isEqualTo(1);
        assertThat(upstream.hits("sk-ant-good")).isEqualTo(1);
        assertThat(upstream.hits("sk-ant-backup")).isEqualTo(1);
        // 529 is the provider failing, not the key being refused: a failure of the key and of the channel
        assertThat(key("sk-ant-good").stats().failureCount()).isEqualTo(1);
        assertThat(channel(testName()).breaker().figures().maxKeyConsecutiveFailures()).isEqualTo(1);
        assertThat(channel(testName()).breaker().figures().callsInWindow()).isEqualTo(1);
        assertThat(channel(testName()).breaker().figures().errorRatePercent()).isEqualTo(100.0);
        assertThat(upstream.received().get(2).body()).contains("\"model\":\"backup-claude\"");
    }

    @Test
    void should_send_the_key_as_x_api_key_and_no_authorization_to_an_x_api_key_channel() {
        Message message = client().messages().create(params("claude-backup/backup-claude"));

        assertThat(message.id()).startsWith("msg_fake_");
        FakeUpstream.Received received = upstream.received().get(0);
        assertThat(received.headers().get("x-api-key")).isEqualTo("sk-ant-backup");
        assertThat(received.headers().contains("Authorization")).isFalse();
        assertThat(received.headers().get("anthropic-version")).isEqualTo("2023-06-01");
    }

    private void assertRotatedPastTheLimitedKey() {
        assertThat(upstream.hits("sk-ant-limited")).isEqualTo(1);
        assertThat(upstream.hits("sk-ant-good")).isEqualTo(1);
        assertThat(channel(testName()).pool().stateOf(key("sk-ant-limited"))).isEqualTo(KeyState.COOLING);
    }

    /** A key of this test's channel claude. */
    private ApiKey key(String secret) {
        return channel(testName()).pool().find(Fingerprint.of(secret)).orElseThrow();
    }
}
