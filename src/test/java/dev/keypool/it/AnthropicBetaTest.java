package dev.keypool.it;

import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

import dev.keypool.testing.FakeUpstream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A client's anthropic-beta flags reach a channel's provider only where that channel's anthropicBeta lists them (or
 * lists *); a channel that lists none gets no anthropic-beta header at all.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class AnthropicBetaTest extends GatewayTestSupport {

    private static final String CLIENT_FLAGS = "prompt-caching-2024-07-31, files-api-2025-04-14,output-128k-2025-02-19";

    @Override
    protected String keypoolYaml() {
        return """
                channels:
                  - name: listed
                    baseUrl: UPSTREAM
                    models: [claude-listed]
                    apis: [messages]
                    anthropicBeta: [prompt-caching-2024-07-31, output-128k-2025-02-19]
                    keys:
                      - key: sk-ant-listed
                  - name: silent
                    baseUrl: UPSTREAM
                    models: [claude-silent]
                    apis: [messages]
                    keys:
                      - key: sk-ant-silent
                  - name: open
                    baseUrl: UPSTREAM
                    models: [claude-open]
                    apis: [messages]
                    anthropicBeta: ["*"]
                    keys:
                      - key: sk-ant-open
                """;
    }

    private FakeUpstream.Received sendAs(String model, String key) throws Exception {
        HttpResponse<String> response = http.send(HttpRequest.newBuilder(URI.create(url("/v1/messages")))
                .header("Content-Type", "application/json")
                .header("anthropic-version", "2023-06-01")
                .header("anthropic-beta", CLIENT_FLAGS)
                .timeout(Duration.ofSeconds(30))
                .POST(HttpRequest.BodyPublishers.ofString("{\"model\":\"" + model
                        + "\",\"max_tokens\":10,\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}")).build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(response.statusCode()).isEqualTo(200);
        return upstream.received().stream().filter(r -> key.equals(r.key())).reduce((a, b) -> b).orElseThrow();
    }

    @Test
    void should_pass_only_the_flags_the_channel_lists() throws Exception {
        FakeUpstream.Received received = sendAs("claude-listed", "sk-ant-listed");

        assertThat(received.headers().getAll("anthropic-beta")).containsExactly("prompt-caching-2024-07-31,output-128k-2025-02-19");
    }

    @Test
    void should_pass_no_flag_to_a_channel_that_lists_none() throws Exception {
        FakeUpstream.Received received = sendAs("claude-silent", "sk-ant-silent");

        assertThat(received.headers().contains("anthropic-beta")).isFalse();
        assertThat(received.headers().get("anthropic-version")).isEqualTo("2023-06-01");
    }

    @Test
    void should_pass_every_flag_to_a_channel_that_lists_the_star() throws Exception {
        FakeUpstream.Received received = sendAs("claude-open", "sk-ant-open");

        assertThat(received.headers().getAll("anthropic-beta")).containsExactly(CLIENT_FLAGS);
    }
}
