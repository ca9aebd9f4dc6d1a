package dev.keypool.it;

import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.List;
import java.util.Map;

import dev.keypool.testing.RequestLogRows;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

/**
 * Prompt-cache tokens reach the request log's row (cached_tokens read, cache_write_tokens written) and are priced by
 * the model's {@code cacheRead} / {@code cacheWrite} rates; a model without them prices them as input.
 */
class CachedTokensCostTest extends GatewayTestSupport {

    private static final String CACHED_ANSWER = "{\"id\":\"chatcmpl-1\",\"object\":\"chat.completion\",\"created\":1700000000,"
            + "\"model\":\"gpt-4o\",\"choices\":[{\"index\":0,\"message\":{\"role\":\"assistant\",\"content\":\"ok\"},"
            + "\"finish_reason\":\"stop\"}],\"usage\":{\"prompt_tokens\":1000,\"completion_tokens\":100,"
            + "\"total_tokens\":1100,\"prompt_tokens_details\":{\"cached_tokens\":800}}}";

    @Override
    protected String keypoolYaml() {
        return """
                channels:
                  - name: openai
                    baseUrl: UPSTREAM
                    models: [gpt-4o, gpt-4o-plain]
                    pricing:
                      gpt-4o: {input: 2.0, output: 8.0, cacheRead: 0.5}
                      gpt-4o-plain: {input: 2.0, output: 8.0}
                    keys:
                      - key: sk-openai-cached
                  - name: claude
                    baseUrl: UPSTREAM
                    models: [claude-test]
                    apis: [messages]
                    pricing:
                      claude-test: {input: 3.0, output: 15.0, cacheRead: 0.3, cacheWrite: 3.75}
                    keys:
                      - key: sk-ant-cached
                """;
    }

    @Test
    void should_price_openai_cached_tokens_at_the_cache_read_rate() throws Exception {
        upstream.answer("sk-openai-cached", 200, null, CACHED_ANSWER);

        assertThat(chat("gpt-4o").statusCode()).isEqualTo(200);

        Map<String, Object> row = rows(1).get(0);
        assertThat(((Number) row.get("prompt_tokens")).longValue()).isEqualTo(1000);
        assertThat(((Number) row.get("cached_tokens")).longValue()).isEqualTo(800);
        // 200 uncached × 2.0 + 800 cached × 0.5 + 100 completion × 8.0, per 1M
        assertThat(((Number) row.get("cost_usd")).doubleValue()).isCloseTo((200 * 2.0 + 800 * 0.5 + 100 * 8.0) / 1e6,
                within(1e-12));
    }

    @Test
    void should_price_cached_tokens_as_input_for_a_model_without_a_cache_rate() throws Exception {
        upstream.answer("sk-openai-cached", 200, null, CACHED_ANSWER);

        assertThat(chat("gpt-4o-plain").statusCode()).isEqualTo(200);

        Map<String, Object> row = rows(1).get(0);
        assertThat(((Number) row.get("cached_tokens")).longValue()).isEqualTo(800);
        assertThat(((Number) row.get("cost_usd")).doubleValue()).isCloseTo((1000 * 2.0 + 100 * 8.0) / 1e6, within(1e-12));
    }

    @Test
    void should_count_anthropic_cache_reads_and_writes_apart_and_price_each() throws Exception {
        // the fake provider's message: 11 input tokens, 2 written to the cache, 3 read from it, 7 output
        HttpResponse<String> answer = http.send(HttpRequest.newBuilder(URI.create(url("/v1/messages")))
                .header("Content-Type", "application/json").header("anthropic-version", "2023-06-01")
                .POST(HttpRequest.BodyPublishers.ofString("{\"model\":\"claude-test\",\"max_tokens\":100,"
                        + "\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}")).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(answer.statusCode()).isEqualTo(200);

        Map<String, Object> row = rows(1).get(0);
        assertThat(((Number) row.get("prompt_tokens")).longValue()).isEqualTo(16);
        assertThat(((Number) row.get("cached_tokens")).longValue()).isEqualTo(3);
        assertThat(((Number) row.get("cache_write_tokens")).longValue()).isEqualTo(2);
        long output = ((Number) row.get("completion_tokens")).longValue();
        assertThat(((Number) row.get("cost_usd")).doubleValue())
                .isCloseTo((11 * 3.0 + 3 * 0.3 + 2 * 3.75 + output * 15.0) / 1e6, within(1e-12));
    }

    private List<Map<String, Object>> rows(int count) {
        return RequestLogRows.sqlite(context.getPropertiesComponent().resolveProperty("state.dir").orElseThrow()).await(count);
    }
}
