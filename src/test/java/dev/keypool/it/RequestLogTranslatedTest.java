package dev.keypool.it;

import java.util.List;
import java.util.Map;

import dev.keypool.testing.RequestLogRows;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The request log of a request translated for a channel of the other format (design §17): the body the provider got,
 * and the tokens it reported.
 */
class RequestLogTranslatedTest extends GatewayTestSupport {

    @Override
    protected String keypoolYaml() {
        return """
                channels:
                  - name: openai-pool
                    baseUrl: UPSTREAM
                    models: [gpt-pool]
                    keys:
                      - key: sk-openai-pool
                requestLog:
                  bodies: true
                """;
    }

    @Test
    void should_log_the_translated_request_and_the_providers_tokens() throws Exception {
        assertThat(post("/v1/messages", "{\"model\":\"gpt-pool\",\"max_tokens\":50,\"system\":\"Be brief.\","
                + "\"messages\":[{\"role\":\"user\",\"content\":\"translated prompt\"}]}").statusCode()).isEqualTo(200);

        Map<String, Object> row = rows().get(0);

        assertThat((String) row.get("request_body")).contains("{\"role\":\"system\",\"content\":\"Be brief.\"}")
                .contains("{\"role\":\"user\",\"content\":\"translated prompt\"}");
        assertThat(row.get("channel")).isEqualTo("openai-pool");
        assertThat(((Number) row.get("prompt_tokens")).longValue()).isEqualTo(11);
        assertThat(((Number) row.get("completion_tokens")).longValue()).isEqualTo(7);
    }

    private List<Map<String, Object>> rows() {
        return RequestLogRows.sqlite(context.getPropertiesComponent().resolveProperty("state.dir").orElseThrow()).await(1);
    }
}
