package dev.keypool.it;

import java.net.http.HttpResponse;
import java.util.Properties;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** A body over the HTTP server's own hard limit is refused by Vert.x before any route: still an OpenAI-shaped 413. */
class ServerLimitAnswerTest extends GatewayTestSupport {

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

    @Override
    protected Properties overrideProperties() {
        Properties p = super.overrideProperties();
        p.put("camel.server.max-body-size", "4096");
        return p;
    }

    @Test
    void should_answer_a_body_over_the_server_limit_with_a_json_413() throws Exception {
        String body = "{\"model\":\"gpt-test\",\"messages\":[{\"role\":\"user\",\"content\":\"" + "x".repeat(10_000) + "\"}]}";

        HttpResponse<String> r = post("/v1/chat/completions", body);

        assertThat(r.statusCode()).isEqualTo(413);
        assertThat(r.headers().firstValue("Content-Type")).contains("application/json");
        JsonNode error = new ObjectMapper().readTree(r.body()).path("error");
        assertThat(error.path("code").asText()).isEqualTo("request_too_large");
        assertThat(error.path("type").asText()).isEqualTo("invalid_request_error");
        assertThat(upstream.totalHits()).isZero();
    }
}
