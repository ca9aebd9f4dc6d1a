package dev.keypool.it;

import java.util.Properties;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A channel's {@code headers:} and {@code query:} (OpenRouter's attribution headers here), values from {@code ${ENV}},
 * go with every call to its provider, streams too; the key's own header is still the key's.
 */
class ChannelHeadersTest extends GatewayTestSupport {

    @Override
    protected String keypoolYaml() {
        return """
                channels:
                  - name: openrouter
                    baseUrl: UPSTREAM
                    models: [openai/gpt-4o]
                    headers:
                      HTTP-Referer: ${KEYPOOL_TEST_SITE_URL}
                      X-Title: KeyPool
                      Authorization: not the key
                    query: {trace: "${KEYPOOL_TEST_TRACE:-off}"}
                    keys:
                      - key: sk-or-key
                """;
    }

    @Override
    protected Properties overrideProperties() {
        Properties properties = super.overrideProperties();
        // read as ${KEYPOOL_TEST_SITE_URL}: a KEYPOOL_ variable follows the setting of that name
        properties.put("keypool.test.site.url", "https://keypool.example");
        return properties;
    }

    @Test
    void should_send_the_channels_headers_and_query_with_each_call() throws Exception {
        assertThat(chat("openai/gpt-4o").statusCode()).isEqualTo(200);
        assertThat(post("/v1/chat/completions",
                "{\"model\":\"openai/gpt-4o\",\"stream\":true,\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}")
                .statusCode()).isEqualTo(200);

        assertThat(upstream.received()).hasSize(2).allSatisfy(call -> {
            assertThat(call.headers().get("HTTP-Referer")).isEqualTo("https://keypool.example");
            assertThat(call.headers().get("X-Title")).isEqualTo("KeyPool");
            assertThat(call.headers().get("Authorization")).isEqualTo("Bearer sk-or-key");
            assertThat(call.query()).isEqualTo("trace=off");
            assertThat(call.path()).isEqualTo("/v1/chat/completions");
        });
        assertThat(upstream.hits("sk-or-key")).isEqualTo(2);
    }
}
