package dev.keypool.config;

import dev.keypool.auth.ProviderAuth;
import org.junit.jupiter.api.Test;

import static dev.keypool.config.ConfigFixtures.problemsOf;
import static org.assertj.core.api.Assertions.assertThat;

/** channels[].type, apiVersion, deployments, headers and query: read with their defaults, refused with their paths. */
class AzureChannelValidationTest {

    private static String channel(String fields) {
        return """
                channels:
                  - name: azure
                    baseUrl: https://my-resource.openai.azure.com
                    models: [gpt-4o]
                    keys:
                      - key: k1
                """ + fields;
    }

    @Test
    void should_read_an_azure_channel_with_the_api_key_header_implied() {
        ChannelConfig azure = ConfigFixtures.parse(channel("""
                    type: azure
                    apiVersion: 2024-10-21
                    deployments: {gpt-4o: my-gpt4o}
                """)).channels().get(0);

        assertThat(azure.provider().type()).isEqualTo(ProviderConfig.Type.AZURE);
        assertThat(azure.provider().apiVersion()).isEqualTo("2024-10-21");
        assertThat(azure.provider().deployment("gpt-4o")).isEqualTo("my-gpt4o");
        assertThat(azure.auth()).isEqualTo(ProviderAuth.API_KEY);
    }

    @Test
    void should_keep_an_openai_channel_as_it_was() {
        ChannelConfig openai = ConfigFixtures.parse(channel("")).channels().get(0);

        assertThat(openai.provider()).isEqualTo(ProviderConfig.OPENAI);
        assertThat(openai.auth()).isEqualTo(ProviderAuth.BEARER);
    }

    @Test
    void should_report_an_unknown_type() {
        assertThat(problemsOf(channel("    type: bedrock\n")))
                .containsExactly("channels[0].type: unknown type 'bedrock' (use openai, azure)");
    }

    @Test
    void should_require_an_api_version_on_azure() {
        assertThat(problemsOf(channel("    type: azure\n"))).containsExactly("channels[0].apiVersion: is required");
    }

    @Test
    void should_refuse_deployments_and_api_version_without_type_azure() {
        assertThat(problemsOf(channel("    apiVersion: 2024-10-21\n    deployments: {gpt-4o: my-gpt4o}\n"))).containsExactly(
                "channels[0].apiVersion: is only for type: azure",
                "channels[0].deployments: is only for type: azure (Azure OpenAI's deployment names)");
    }

    @Test
    void should_refuse_a_header_that_is_no_header_name_without_quoting_its_value() {
        assertThat(problemsOf(channel("    headers: {\"Bad Name\": secret-value}\n")))
                .containsExactly("channels[0].headers.Bad Name: is not an HTTP header name");
    }
}
