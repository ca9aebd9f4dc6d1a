package dev.keypool.config;

import dev.keypool.auth.ProviderAuth;
import org.junit.jupiter.api.Test;

import static dev.keypool.config.ConfigFixtures.problemsOf;
import static org.assertj.core.api.Assertions.assertThat;

/** channels[].auth: how the provider takes a key, validated with its path like every field. */
class ProviderAuthValidationTest {

    private static String channel(String auth) {
        return """
                channels:
                  - name: claude
                    baseUrl: https://api.anthropic.com/v1
                    models: [claude-sonnet-4-5]
                    apis: [messages]
                    keys:
                      - key: k1
                """ + (auth == null ? "" : "    auth: " + auth + "\n");
    }

    @Test
    void should_take_bearer_by_default_and_x_api_key_when_asked() {
        assertThat(ConfigFixtures.parse(channel(null)).channels().get(0).auth()).isEqualTo(ProviderAuth.BEARER);
        assertThat(ConfigFixtures.parse(channel("bearer")).channels().get(0).auth()).isEqualTo(ProviderAuth.BEARER);
        ChannelConfig anthropic = ConfigFixtures.parse(channel("x-api-key")).channels().get(0);
        assertThat(anthropic.auth()).isEqualTo(ProviderAuth.X_API_KEY);
        assertThat(anthropic.servesApi(Api.MESSAGES)).isTrue();
    }

    @Test
    void should_report_an_unknown_auth_with_its_path() {
        assertThat(problemsOf(channel("basic"))).containsExactly("channels[0].auth: unknown auth 'basic' (use bearer, x-api-key, api-key)");
        assertThat(problemsOf(channel("[bearer]"))).hasSize(1).first().asString().startsWith("channels[0].auth: ");
    }
}
