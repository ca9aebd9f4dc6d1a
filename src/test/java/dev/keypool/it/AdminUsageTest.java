package dev.keypool.it;

import java.net.http.HttpResponse;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.keypool.testing.RequestLogRows;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * GET /admin/usage sums the request log per tenant, model, channel or key and per UTC hour or day: requests, tokens
 * (cached ones apart), cost and errors. Six requests over two hours of one day and one hour of the next.
 * One gateway for the class: the other test asks only for refusals, which add no row.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class AdminUsageTest extends GatewayTestSupport {

    private static final ObjectMapper JSON = new ObjectMapper();
    /** 1000 prompt tokens of which 800 cached, 100 completion: on zhipu (input 2, cacheRead 1, output 4) 0.0016 USD. */
    private static final String CACHED_ANSWER = "{\"id\":\"chatcmpl-1\",\"object\":\"chat.completion\",\"created\":1700000000,"
            + "\"model\":\"glm-4-flash\",\"choices\":[{\"index\":0,\"message\":{\"role\":\"assistant\",\"content\":\"ok\"},"
            + "\"finish_reason\":\"stop\"}],\"usage\":{\"prompt_tokens\":1000,\"completion_tokens\":100,"
            + "\"total_tokens\":1100,\"prompt_tokens_details\":{\"cached_tokens\":800}}}";

    @Override
    protected String keypoolYaml() {
        return """
                channels:
                  - name: zhipu
                    baseUrl: UPSTREAM
                    models: [glm-4-flash]
                    pricing:
                      glm-4-flash: {input: 2.0, output: 4.0, cacheRead: 1.0}
                    keys:
                      - key: sk-zhipu-usage
                  - name: deepseek
                    baseUrl: UPSTREAM
                    models: [deepseek-chat]
                    pricing:
                      deepseek-chat: {input: 1.0, output: 2.0}
                    keys:
                      - key: sk-deepseek-usage
                tenants:
                  - name: acme
                    token: acme-token
                  - name: beta
                    token: beta-token
                admin:
                  token: admin-secret
                """;
    }

    @Test
    void should_sum_requests_tokens_cost_and_errors_per_group_and_interval() throws Exception {
        upstream.answer("sk-zhipu-usage", 200, null, CACHED_ANSWER);
        clock.set(Instant.parse("2026-12-01T10:15:00Z"));
        String zhipuKey = chatAs("acme-token", "glm-4-flash").headers().firstValue("X-KeyPool-Key").orElseThrow();
        chatAs("acme-token", "glm-4-flash");
        String deepseekKey = chatAs("beta-token", "deepseek-chat").headers().firstValue("X-KeyPool-Key").orElseThrow();
        clock.set(Instant.parse("2026-12-01T11:30:00Z"));
        chatAs("acme-token", "deepseek-chat");
        assertThat(chatAs("acme-token", "no-such-model").statusCode()).isEqualTo(404);
        clock.set(Instant.parse("2026-12-02T09:00:00Z"));
        chatAs("beta-token", "glm-4-flash");
        RequestLogRows.sqlite(context.getPropertiesComponent().resolveProperty("state.dir").orElseThrow()).await(6);

        // start | group | requests | prompt | cached | completion | cost | errors
        assertThat(usage("groupBy=tenant&interval=hour")).containsExactly(
                "2026-12-01T10:00:00Z|acme|2|2000|1600|200|0.003200|0",
                "2026-12-01T10:00:00Z|beta|1|11|0|7|0.000025|0",
                "2026-12-01T11:00:00Z|acme|2|11|0|7|0.000025|1",
                "2026-12-02T09:00:00Z|beta|1|1000|800|100|0.001600|0");
        assertThat(usage("groupBy=model&interval=day")).containsExactly(
                "2026-12-01T00:00:00Z|deepseek-chat|2|22|0|14|0.000050|0",
                "2026-12-01T00:00:00Z|glm-4-flash|2|2000|1600|200|0.003200|0",
                "2026-12-01T00:00:00Z|no-such-model|1|0|0|0|0.000000|1",
                "2026-12-02T00:00:00Z|glm-4-flash|1|1000|800|100|0.001600|0");
        assertThat(usage("groupBy=channel&interval=day")).containsExactlyInAnyOrder(
                "2026-12-01T00:00:00Z|null|1|0|0|0|0.000000|1",
                "2026-12-01T00:00:00Z|deepseek|2|22|0|14|0.000050|0",
                "2026-12-01T00:00:00Z|zhipu|2|2000|1600|200|0.003200|0",
                "2026-12-02T00:00:00Z|zhipu|1|1000|800|100|0.001600|0");
        assertThat(usage("groupBy=key&interval=day")).contains(
                "2026-12-01T00:00:00Z|" + deepseekKey + "|2|22|0|14|0.000050|0",
                "2026-12-01T00:00:00Z|" + zhipuKey + "|2|2000|1600|200|0.003200|0",
                "2026-12-02T00:00:00Z|" + zhipuKey + "|1|1000|800|100|0.001600|0");
        // to is exclusive: the next day's row is left out
        assertThat(usage("groupBy=tenant&interval=day&to=2026-12-02T00:00:00Z")).containsExactly(
                "2026-12-01T00:00:00Z|acme|4|2011|1600|207|0.003225|1",
                "2026-12-01T00:00:00Z|beta|1|11|0|7|0.000025|0");
    }

    @Test
    void should_answer_400_for_bad_parameters_and_401_without_the_admin_token() throws Exception {
        assertThat(badRequest("groupBy=user")).contains("groupBy must be tenant, model, channel or key");
        assertThat(badRequest("interval=week")).contains("interval must be hour or day");
        assertThat(badRequest("from=yesterday")).contains("ISO-8601");
        assertThat(badRequest("from=2026-12-02T00:00:00Z&to=2026-12-01T00:00:00Z")).contains("from must be before to");
        assertThat(badRequest("interval=hour&from=2026-10-01T00:00:00Z&to=2026-12-01T00:00:00Z"))
                .contains("at most 1000");
        assertThat(getWithToken("/admin/usage", "wrong").statusCode()).isEqualTo(401);
    }

    private String badRequest(String query) throws Exception {
        HttpResponse<String> answer = getWithToken("/admin/usage?" + query, "admin-secret");
        assertThat(answer.statusCode()).as(query).isEqualTo(400);
        assertThat(answer.body()).contains("invalid_parameter");
        return answer.body();
    }

    private List<String> usage(String query) throws Exception {
        HttpResponse<String> answer = getWithToken("/admin/usage?from=2026-12-01T00:00:00Z&"
                + (query.contains("to=") ? "" : "to=2026-12-03T00:00:00Z&") + query, "admin-secret");
        assertThat(answer.statusCode()).as(answer.body()).isEqualTo(200);
        JsonNode root = JSON.readTree(answer.body());
        assertThat(root.path("truncated").asBoolean()).isFalse();
        List<String> lines = new ArrayList<>();
        for (JsonNode b : root.path("data")) {
            lines.add(String.join("|", b.path("start").asText(), b.path("group").asText(), b.path("requests").asText(),
                    b.path("promptTokens").asText(), b.path("cachedTokens").asText(), b.path("completionTokens").asText(),
                    String.format(Locale.ROOT, "%.6f", b.path("costUsd").asDouble()), b.path("errors").asText()));
        }
        return lines;
    }
}
