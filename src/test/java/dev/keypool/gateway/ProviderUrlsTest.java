package dev.keypool.gateway;

import dev.keypool.config.ChannelConfig;
import dev.keypool.config.ConfigLoader;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** Where each call of a channel goes: OpenAI's paths, Azure OpenAI's deployments with api-version, and a channel's own query. */
class ProviderUrlsTest {

    private static ChannelConfig channel(String extra) {
        return new ConfigLoader(name -> null).parse("""
                channels:
                  - name: c
                    baseUrl: https://my-resource.openai.azure.com/
                    models: [gpt-4o, text-embedding-3-small, dall-e-3, whisper-1, tts-1, o4-mini]
                    modelMap: {o4-mini: o4-mini-2025-04-16}
                    keys:
                      - key: k1
                """ + extra, "test.yaml").channels().get(0);
    }

    private static final String AZURE = "    type: azure\n    apiVersion: 2024-10-21\n"
            + "    deployments: {gpt-4o: my-gpt4o, o4-mini-2025-04-16: reasoning, dall-e-3: images one}\n";

    @Test
    void should_append_the_openai_path_to_the_base_url() {
        assertThat(ProviderUrls.url(channel(""), "chat/completions", "gpt-4o"))
                .isEqualTo("https://my-resource.openai.azure.com/chat/completions");
        assertThat(ProviderUrls.query(channel(""))).isNull();
    }

    @Test
    void should_put_the_deployment_in_the_path_and_the_api_version_in_the_query_on_azure() {
        ChannelConfig azure = channel(AZURE);
        String base = "https://my-resource.openai.azure.com/openai/";

        assertThat(ProviderUrls.url(azure, "chat/completions", "gpt-4o"))
                .isEqualTo(base + "deployments/my-gpt4o/chat/completions");
        assertThat(ProviderUrls.url(azure, "embeddings", "text-embedding-3-small"))
                .isEqualTo(base + "deployments/text-embedding-3-small/embeddings");
        assertThat(ProviderUrls.url(azure, "images/generations", "dall-e-3"))
                .isEqualTo(base + "deployments/images%20one/images/generations");
        assertThat(ProviderUrls.url(azure, "audio/transcriptions", "whisper-1"))
                .isEqualTo(base + "deployments/whisper-1/audio/transcriptions");
        assertThat(ProviderUrls.url(azure, "audio/speech", "tts-1"))
                .isEqualTo(base + "deployments/tts-1/audio/speech");
        // Responses names the deployment in the body, not the path
        assertThat(ProviderUrls.url(azure, "responses", "gpt-4o")).isEqualTo(base + "responses");
        assertThat(ProviderUrls.query(azure)).isEqualTo("api-version=2024-10-21");
    }

    @Test
    void should_look_the_deployment_up_after_model_map() {
        ChannelConfig azure = channel(AZURE);

        String upstream = azure.upstreamModel("o4-mini");
        assertThat(ProviderUrls.url(azure, "chat/completions", upstream))
                .isEqualTo("https://my-resource.openai.azure.com/openai/deployments/reasoning/chat/completions");
        assertThat(azure.provider().wireModel(upstream)).isEqualTo("reasoning");
        // pricing and the X-KeyPool-Model header keep the model's name
        assertThat(upstream).isEqualTo("o4-mini-2025-04-16");
    }

    @Test
    void should_add_the_channels_query_on_any_provider() {
        assertThat(ProviderUrls.query(channel("    query: {route: fallback, tag: a&b c}\n"))).isEqualTo("route=fallback&tag=a%26b%20c");
        assertThat(ProviderUrls.query(channel(AZURE + "    query: {tag: x}\n"))).isEqualTo("api-version=2024-10-21&tag=x");
    }

    @Test
    void should_send_the_model_name_itself_to_a_provider_that_is_not_azure() {
        assertThat(channel("").provider().wireModel("gpt-4o")).isEqualTo("gpt-4o");
    }
}
