package dev.keypool.it;

import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.keypool.pool.ApiKey;
import dev.keypool.pool.Fingerprint;
import dev.keypool.testing.FakeUpstream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * /v1/messages over raw HTTP: what reaches the provider, 529 retries, broken streams and the gateway's own errors. The
 * tests share one gateway, each on a channel claude of its own (its keys' states are the test's alone).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class AnthropicMessagesTest extends GatewayTestSupport {

    private static final ObjectMapper JSON = new ObjectMapper();

    /** openai-only, claude-limited, and each test's own channel claude, named after it and serving one model so named. */
    @Override
    protected String keypoolYaml() {
        StringBuilder yaml = new StringBuilder("""
                channels:
                  - name: openai-only
                    baseUrl: UPSTREAM
                    models: [gpt-anything]
                    keys:
                      - key: sk-openai
                  - name: claude-limited
                    baseUrl: UPSTREAM
                    models: [claude-quota]
                    apis: [messages]
                    keys:
                      - key: sk-ant-quota
                        rpm: 1
                """);
        for (String test : testNames()) {
            yaml.append("""
                      - name: %1$s
                        baseUrl: UPSTREAM
                        models: [%1$s]
                        apis: [messages]
                        anthropicBeta: ["*"]
                        keys:
                          - key: sk-ant-1
                          - key: sk-ant-2
                    """.formatted(test));
        }
        return yaml.toString();
    }

    private static String messagesBody(String model, boolean stream) {
        return "{\"model\":\"" + model + "\",\"max_tokens\":100,\"stream\":" + stream
                + ",\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}";
    }

    private HttpResponse<String> messages(String body) throws Exception {
        HttpRequest request = HttpRequest.newBuilder(URI.create(url("/v1/messages")))
                .header("Content-Type", "application/json")
                .header("x-api-key", "client-token-should-not-leak")
                .header("anthropic-version", "2023-06-01")
                .header("anthropic-beta", "output-128k-2025-02-19,files-api-2025-04-14")
                .header("X-Custom", "stays-here")
                .timeout(Duration.ofSeconds(30))
                .POST(HttpRequest.BodyPublishers.ofString(body)).build();
        return http.send(request, HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void should_send_the_provider_only_the_body_the_anthropic_headers_and_the_pool_key() throws Exception {
        HttpResponse<String> response = messages(messagesBody(testName(), false));

        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(response.headers().firstValue("X-KeyPool-Channel")).hasValue(testName());
        FakeUpstream.Received received = upstream.received().get(0);
        assertThat(received.path()).isEqualTo("/v1/messages");
        assertThat(received.headers().get("anthropic-version")).isEqualTo("2023-06-01");
        assertThat(received.headers().getAll("anthropic-beta")).containsExactly("output-128k-2025-02-19,files-api-2025-04-14");
        assertThat(received.headers().get("Authorization")).startsWith("Bearer sk-ant-");
        assertThat(received.headers().contains("x-api-key")).isFalse();
        assertThat(received.headers().contains("X-Custom")).isFalse();
    }

    @Test
    void should_send_no_anthropic_header_on_the_openai_paths() throws Exception {
        assertThat(chat("gpt-anything").statusCode()).isEqualTo(200);

        FakeUpstream.Received received = upstream.received().get(0);
        assertThat(received.path()).isEqualTo("/v1/chat/completions");
        assertThat(received.headers().names()).noneMatch(h -> h.toLowerCase().startsWith("anthropic"));
    }

    @Test
    void should_retry_a_529_on_another_key_and_count_it_as_a_failure_of_the_key() throws Exception {
        upstream.answer("sk-ant-1", 529);
        upstream.answer("sk-ant-2", 529);

        HttpResponse<String> failed = messages(messagesBody(testName(), false));
        upstream.healthy("sk-ant-2");
        HttpResponse<String> served = messages(messagesBody(testName(), false));

        // both keys tried, the channel failed (a 5xx-like failure, not an exhausted pool of refused keys)
        assertThat(failed.statusCode()).isEqualTo(503);
        assertThat(failed.body()).contains(testName() + " failed (last: 529)");
        assertThat(served.statusCode()).isEqualTo(200);
        assertThat(served.headers().firstValue("X-KeyPool-Key")).hasValue(Fingerprint.of("sk-ant-2"));
        assertThat(key("sk-ant-1").stats().consecutiveFailures()).isGreaterThanOrEqualTo(1);
        assertThat(key("sk-ant-1").stats().rateLimitCount()).isZero();
    }

    @Test
    void should_end_a_stream_broken_after_its_first_event_with_an_anthropic_error_event() throws Exception {
        upstream.answer("sk-ant-2", 500);
        upstream.cutStreamAfter("sk-ant-1", 2);

        HttpResponse<String> response = messages(messagesBody(testName(), true));

        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(response.body()).startsWith("event: message_start\n")
                .contains("\"text\":\"tok1 \"")
                .doesNotContain("message_stop");
        String last = response.body().strip().substring(response.body().strip().lastIndexOf("event:"));
        assertThat(last).startsWith("event: error\ndata: ");
        JsonNode error = JSON.readTree(last.substring(last.indexOf("data: ") + 6));
        assertThat(error.path("type").asText()).isEqualTo("error");
        assertThat(error.path("error").path("type").asText()).isEqualTo("api_error");
        assertThat(error.path("error").path("message").asText()).contains(testName()).contains("incomplete");
        assertThat(key("sk-ant-1").stats().failureCount()).isEqualTo(1);
    }

    @Test
    void should_answer_the_gateways_own_errors_in_anthropics_shape_with_the_openai_statuses() throws Exception {
        assertAnthropicError(messages("{\"max_tokens\":1,\"messages\":[]}"), 400, "invalid_request_error", "'model' is required");
        assertAnthropicError(messages("not json"), 400, "invalid_request_error", "not valid JSON");
        // no channel serves the model, in either format (one of the other format would get it translated, design §17)
        assertAnthropicError(messages(messagesBody("gpt-4o", false)), 404, "not_found_error", "gpt-4o");
        assertAnthropicError(messages("{\"model\":\"" + testName() + "\",\"pad\":\"" + "x".repeat(4_200_000) + "\"}"),
                413, "invalid_request_error", "over the limit");
        HttpResponse<String> get = http.send(HttpRequest.newBuilder(URI.create(url("/v1/messages"))).GET().build(),
                HttpResponse.BodyHandlers.ofString());
        assertAnthropicError(get, 405, "invalid_request_error", "not allowed");

        assertThat(messages(messagesBody("claude-quota", false)).statusCode()).isEqualTo(200);
        HttpResponse<String> quota = messages(messagesBody("claude-quota", false));
        assertAnthropicError(quota, 429, "rate_limit_error", "claude-limited at quota");
        assertThat(quota.headers().firstValue("Retry-After")).isPresent();

        upstream.answer("sk-ant-1", 500);
        upstream.answer("sk-ant-2", 500);
        HttpResponse<String> unavailable = messages(messagesBody(testName(), false));
        assertAnthropicError(unavailable, 503, "overloaded_error", "No channel could serve");
        assertThat(unavailable.headers().firstValue("Retry-After")).isPresent();
        // the same mistake on an OpenAI path stays OpenAI-shaped
        HttpResponse<String> openAi = post("/v1/chat/completions", "{\"messages\":[]}");
        assertThat(openAi.statusCode()).isEqualTo(400);
        assertThat(JSON.readTree(openAi.body()).path("error").path("code").asText()).isEqualTo("missing_model");
    }

    private static void assertAnthropicError(HttpResponse<String> response, int status, String type, String message)
            throws Exception {
        assertThat(response.statusCode()).isEqualTo(status);
        JsonNode body = JSON.readTree(response.body());
        assertThat(body.path("type").asText()).isEqualTo("error");
        assertThat(body.path("error").path("type").asText()).isEqualTo(type);
        assertThat(body.path("error").path("message").asText()).contains(message);
        assertThat(body.has("code")).isFalse();
    }

    /** A key of this test's channel claude. */
    private ApiKey key(String secret) {
        return channel(testName()).pool().find(Fingerprint.of(secret)).orElseThrow();
    }
}
