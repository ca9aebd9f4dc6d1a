package dev.keypool.config;

import org.junit.jupiter.api.Test;

import static dev.keypool.config.ConfigFixtures.problemsOf;
import static org.assertj.core.api.Assertions.assertThat;

/** channels[].anthropicBeta: the beta flags a channel passes on, none by default, validated with its path. */
class AnthropicBetaValidationTest {

    private static String channel(String anthropicBeta) {
        return """
                channels:
                  - name: claude
                    baseUrl: https://api.anthropic.com/v1
                    models: [claude-sonnet-4-5]
                    apis: [messages]
                    keys:
                      - key: k1
                """ + (anthropicBeta == null ? "" : "    anthropicBeta: " + anthropicBeta + "\n");
    }

    @Test
    void should_pass_no_flag_by_default_and_the_listed_ones_when_asked() {
        assertThat(ConfigFixtures.parse(channel(null)).channels().get(0).anthropicBeta()).isEmpty();
        assertThat(ConfigFixtures.parse(channel("[prompt-caching-2024-07-31, context-1m-2025-08-07]")).channels().get(0)
                .anthropicBeta()).containsExactly("prompt-caching-2024-07-31", "context-1m-2025-08-07");
        assertThat(ConfigFixtures.parse(channel("[\"*\"]")).channels().get(0).anthropicBeta()).containsExactly("*");
    }

    @Test
    void should_report_what_is_not_a_flag_name_with_its_path() {
        assertThat(problemsOf(channel("[\"a,b\"]"))).containsExactly(
                "channels[0].anthropicBeta[0]: must be an anthropic-beta flag name (letters, digits, '.', '_', '-') or *");
        assertThat(problemsOf(channel("[\"*\", files-api-2025-04-14]"))).containsExactly(
                "channels[0].anthropicBeta: * lets every flag through: list it alone");
        assertThat(problemsOf(channel("prompt-caching-2024-07-31"))).hasSize(1).first().asString()
                .startsWith("channels[0].anthropicBeta: ");
    }
}
