package dev.keypool.it;

import java.net.http.HttpResponse;
import java.util.List;
import java.util.Map;

import dev.keypool.testing.RequestLogRows;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

/**
 * Every request leaves one row in the request log, in SQLite in state.dir by default: what was asked, where it was
 * served, its tokens and cost, or the gateway's error code; never the prompt, the answer or a key.
 * The tests share one gateway, each reading the rows written since it began.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class RequestLogTest extends GatewayTestSupport {

    @Override
    protected String keypoolYaml() {
        return """
                channels:
                  - name: zhipu
                    baseUrl: UPSTREAM
                    models: [glm-4-flash]
                    modelMap: {gpt-4o-mini: glm-4-flash}
                    pricing:
                      glm-4-flash: {input: 2.0, output: 4.0}
                    keys:
                      - key: sk-zhipu-secret-1
                """;
    }

    @Test
    void should_write_one_row_per_request_with_its_outcome() throws Exception {
        HttpResponse<String> served = chat("gpt-4o-mini");
        HttpResponse<String> unknown = chat("no-such-model");
        assertThat(served.statusCode()).isEqualTo(200);
        assertThat(unknown.statusCode()).isEqualTo(404);

        List<Map<String, Object>> rows = awaitRows(2);

        Map<String, Object> ok = rows.get(0);
        assertThat(ok.get("request_id")).isEqualTo(served.headers().firstValue("X-Request-Id").orElseThrow());
        assertThat(ok.get("source")).isEqualTo("api");
        assertThat(ok.get("tenant")).isEqualTo("none");
        assertThat(ok.get("api")).isEqualTo("chat");
        assertThat(ok.get("model")).isEqualTo("gpt-4o-mini");
        assertThat(ok.get("served_model")).isEqualTo("glm-4-flash");
        assertThat(ok.get("channel")).isEqualTo("zhipu");
        assertThat(ok.get("key_fingerprint")).isEqualTo(served.headers().firstValue("X-KeyPool-Key").orElseThrow());
        assertThat(ok.get("pool")).isEqualTo("shared");
        assertThat(ok.get("attempts")).isEqualTo(1);
        assertThat(ok.get("fallback_level")).isEqualTo(0);
        assertThat(ok.get("status")).isEqualTo(200);
        assertThat(ok.get("error_code")).isNull();
        // the fake provider reports 11 prompt and 7 completion tokens: (11 × 2 + 7 × 4) / 1M USD
        assertThat(ok.get("prompt_tokens")).isEqualTo(11);
        assertThat(ok.get("completion_tokens")).isEqualTo(7);
        assertThat(((Number) ok.get("cost_usd")).doubleValue()).isCloseTo(0.00005, within(1e-12));
        assertThat(((Number) ok.get("latency_ms")).longValue()).isGreaterThanOrEqualTo(0);
        assertThat(ok.get("ttfb_ms")).isNull();
        assertThat(((Number) ok.get("ts")).longValue()).isEqualTo(clock.millis());

        Map<String, Object> refused = rows.get(1);
        assertThat(refused.get("request_id")).isEqualTo(unknown.headers().firstValue("X-Request-Id").orElseThrow());
        assertThat(refused.get("model")).isEqualTo("no-such-model");
        assertThat(refused.get("status")).isEqualTo(404);
        assertThat(refused.get("error_code")).isEqualTo("model_not_found");
        assertThat(refused.get("channel")).isNull();
        assertThat(refused.get("attempts")).isEqualTo(0);
    }

    @Test
    void should_store_no_prompt_answer_or_key() throws Exception {
        assertThat(post("/v1/chat/completions", "{\"model\":\"gpt-4o-mini\",\"messages\":[{\"role\":\"user\","
                + "\"content\":\"my-secret-prompt\"}]}").statusCode()).isEqualTo(200);

        List<Map<String, Object>> rows = awaitRows(1);
        String everything = rows.toString();

        // requestLog.bodies is off unless keypool.yaml turns it on
        assertThat(rows.get(0)).containsEntry("request_body", null).containsEntry("answer_body", null);
        assertThat(everything).doesNotContain("sk-zhipu-secret-1", "client-token-should-not-leak", "my-secret-prompt",
                "fake answer");
    }

    @Test
    void should_log_a_stream_with_its_time_to_first_byte() throws Exception {
        HttpResponse<String> stream = post("/v1/chat/completions",
                "{\"model\":\"glm-4-flash\",\"stream\":true,\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}");
        assertThat(stream.statusCode()).isEqualTo(200);

        Map<String, Object> row = awaitRows(1).get(0);

        assertThat(row.get("request_id")).isEqualTo(stream.headers().firstValue("X-Request-Id").orElseThrow());
        assertThat(row.get("status")).isEqualTo(200);
        assertThat(((Number) row.get("ttfb_ms")).longValue()).isBetween(0L, ((Number) row.get("latency_ms")).longValue());
        assertThat(((Number) row.get("completion_tokens")).longValue()).isPositive();
    }

    @Test
    void should_log_an_async_task_as_one_row_of_its_own() throws Exception {
        HttpResponse<String> accepted = http.send(java.net.http.HttpRequest.newBuilder(java.net.URI.create(url("/v1/chat/completions")))
                .header("Content-Type", "application/json").header("X-KeyPool-Async", "true")
                .POST(java.net.http.HttpRequest.BodyPublishers.ofString(chatBody("glm-4-flash"))).build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(accepted.statusCode()).isEqualTo(202);

        List<Map<String, Object>> rows = awaitRows(1);

        assertThat(rows).hasSize(1);
        assertThat(rows.get(0).get("source")).isEqualTo("async");
        assertThat(rows.get(0).get("status")).isEqualTo(200);
        assertThat(rows.get(0).get("channel")).isEqualTo("zhipu");
    }

    /** The rows this test's requests wrote, once there are at least {@code count}. */
    private List<Map<String, Object>> awaitRows(int count) {
        return requestLog().awaitSince(rowsBefore, count);
    }

    private RequestLogRows requestLog() {
        return RequestLogRows.sqlite(context.getPropertiesComponent().resolveProperty("state.dir").orElseThrow());
    }

    private int rowsBefore;

    /** The rows of the tests before this one (each waits for all of its own rows before it ends). */
    @BeforeEach
    void countEarlierRows() {
        rowsBefore = requestLog().all().size();
    }
}
