package dev.keypool.it;

import java.net.http.HttpResponse;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Where a request is translated (design §17): only when no channel of its model speaks the client's format, or when a
 * model group's target names a channel of the other format; never when a channel speaks it.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class TranslationChoiceTest extends GatewayTestSupport {

    private static final String MESSAGE = "{\"model\":\"%s\",\"max_tokens\":10,\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}";

    @Override
    protected String keypoolYaml() {
        return """
                channels:
                  - name: claude
                    baseUrl: UPSTREAM
                    models: [both-formats]
                    apis: [messages]
                    keys:
                      - key: sk-claude
                  - name: openai
                    baseUrl: UPSTREAM
                    models: [both-formats, openai-only]
                    apis: [chat]
                    keys:
                      - key: sk-openai
                modelGroups:
                  - name: mixed
                    targets:
                      - {channel: openai, model: openai-only}
                """;
    }

    @Test
    void should_not_translate_when_a_channel_of_the_model_speaks_the_clients_format() throws Exception {
        HttpResponse<String> response = post("/v1/messages", MESSAGE.formatted("both-formats"));

        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(response.headers().firstValue("X-KeyPool-Translated")).isEmpty();
        assertThat(response.headers().firstValue("X-KeyPool-Channel")).contains("claude");
        assertThat(upstream.received().get(0).path()).isEqualTo("/v1/messages");
        assertThat(upstream.received().get(0).body()).isEqualTo(MESSAGE.formatted("both-formats"));
    }

    @Test
    void should_translate_when_only_channels_of_the_other_format_serve_the_model() throws Exception {
        HttpResponse<String> response = post("/v1/messages", MESSAGE.formatted("openai-only"));

        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(response.headers().firstValue("X-KeyPool-Translated")).contains("anthropic->openai");
        assertThat(response.body()).contains("\"type\":\"message\"");
        assertThat(upstream.received().get(0).path()).isEqualTo("/v1/chat/completions");
    }

    @Test
    void should_translate_for_a_model_group_target_of_the_other_format() throws Exception {
        HttpResponse<String> response = post("/v1/messages", MESSAGE.formatted("mixed"));

        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(response.headers().firstValue("X-KeyPool-Translated")).contains("anthropic->openai");
        assertThat(response.headers().firstValue("X-KeyPool-Channel")).contains("openai");
        assertThat(upstream.received().get(0).path()).isEqualTo("/v1/chat/completions");
        assertThat(upstream.received().get(0).body()).contains("\"model\":\"openai-only\"");
    }
}
