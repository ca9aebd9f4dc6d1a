package dev.keypool.it;

import java.net.http.HttpResponse;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.apache.camel.model.ModelCamelContext;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import static org.assertj.core.api.Assertions.assertThat;

/** Every error the gateway produces itself is OpenAI-shaped JSON, and the gateway keeps serving after it. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class GatewayErrorsTest extends GatewayTestSupport {

    private static final ObjectMapper JSON = new ObjectMapper();

    @Override
    protected String keypoolYaml() {
        return """
                channels:
                  - name: alpha
                    baseUrl: UPSTREAM
                    models: [gpt-test]
                    keys:
                      - key: sk-alpha-1
                """;
    }

    @Test
    void should_reject_a_body_that_is_not_json_with_400() throws Exception {
        assertError(post("/v1/chat/completions", "this is not json"), 400, "invalid_request_error", "invalid_json");
        assertServesAfterwards();
    }

    @Test
    void should_reject_a_json_array_body_with_400() throws Exception {
        assertError(post("/v1/chat/completions", "[1,2]"), 400, "invalid_request_error", "invalid_json");
    }

    @Test
    void should_reject_a_request_without_model_with_400() throws Exception {
        assertError(post("/v1/chat/completions", "{\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}"),
                400, "invalid_request_error", "missing_model");
        assertServesAfterwards();
    }

    @Test
    void should_reject_a_chat_request_without_messages_with_400() throws Exception {
        assertError(post("/v1/chat/completions", "{\"model\":\"gpt-test\"}"), 400, "invalid_request_error", "missing_messages");
    }

    @Test
    void should_reject_an_embeddings_request_without_input_with_400() throws Exception {
        assertError(post("/v1/embeddings", "{\"model\":\"gpt-test\"}"), 400, "invalid_request_error", "missing_input");
    }

    @Test
    void should_answer_404_for_a_model_no_channel_serves() throws Exception {
        HttpResponse<String> r = chat("no-such-model");
        assertError(r, 404, "invalid_request_error", "model_not_found");
        assertThat(r.body()).contains("no-such-model");
        assertThat(upstream.totalHits()).isZero();
        assertServesAfterwards();
    }

    @Test
    void should_answer_413_for_a_body_over_the_limit() throws Exception {
        String big = "{\"model\":\"gpt-test\",\"messages\":[{\"role\":\"user\",\"content\":\"" + "x".repeat(4 * 1024 * 1024) + "\"}]}";
        assertError(post("/v1/chat/completions", big), 413, "invalid_request_error", "request_too_large");
        assertThat(upstream.totalHits()).isZero();
        assertServesAfterwards();
    }

    @Test
    void should_answer_503_when_the_only_key_fails_and_keep_serving_when_it_recovers() throws Exception {
        upstream.answer("sk-alpha-1", 500);
        HttpResponse<String> r = chat("gpt-test");
        assertError(r, 503, "service_unavailable_error", "no_channel_available");
        // nothing says when alpha is back (its key is not cooling, its breaker is closed): the 60 s default
        assertThat(r.headers().firstValue("Retry-After")).contains("60");
        assertThat(r.body()).contains("alpha failed (last: 500)");

        upstream.healthy("sk-alpha-1");
        assertServesAfterwards();
    }

    @Test
    void should_leave_the_errors_of_the_inner_hops_to_the_routes_that_call_them() {
        // the 503 above is thrown at the fallback walk's end and answered by the entry's gateway-errors
        ModelCamelContext routes = (ModelCamelContext) context;
        for (String hop : new String[] {"chat-core", "gateway-core", "fallback-walk", "channel-alpha", "upstream-attempt"}) {
            assertThat(routes.getRouteDefinition(hop).getRouteConfigurationId()).as(hop).isEqualTo("caller-errors");
        }
        // a batch line or an async task, which no entry calls, has gateway-core's failures answered on its way in
        assertThat(routes.getRouteDefinition("gateway-core-answered").getRouteConfigurationId()).isEqualTo("gateway-errors");
    }

    private void assertServesAfterwards() throws Exception {
        HttpResponse<String> ok = chat("gpt-test");
        assertThat(ok.statusCode()).isEqualTo(200);
        assertThat(ok.body()).contains("chat.completion");
    }

    private static void assertError(HttpResponse<String> r, int status, String type, String code) throws Exception {
        assertThat(r.statusCode()).isEqualTo(status);
        assertThat(r.headers().firstValue("Content-Type")).hasValueSatisfying(v -> assertThat(v).startsWith("application/json"));
        JsonNode error = JSON.readTree(r.body()).get("error");
        assertThat(error).isNotNull();
        assertThat(error.get("message").asText()).isNotBlank();
        assertThat(error.get("type").asText()).isEqualTo(type);
        assertThat(error.get("code").asText()).isEqualTo(code);
    }
}
