package dev.keypool.config;

import java.util.List;
import java.util.Map;

import dev.keypool.breaker.BreakerSettings;

import org.junit.jupiter.api.Test;

import static dev.keypool.config.ConfigFixtures.parse;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

/** Raw keys and tokens appear in no problem, message or toString, wherever a user puts them by mistake. */
class SecretsNeverPrintedTest {

    private static final String SECRET = "sk-live-SECRET123";
    private static final Map<String, String> ENV = Map.of("LIVE_KEY", SECRET);

    private static ConfigException failureOf(String yaml) {
        return catchThrowableOfType(ConfigException.class, () -> parse(ENV, yaml));
    }

    private static void assertNoSecretIn(ConfigException e) {
        assertThat(e).as("a ConfigException").isNotNull();
        assertThat(e.getMessage()).doesNotContain("SECRET123");
        assertThat(e.problems()).noneMatch(p -> p.contains("SECRET123"));
    }

    @Test
    void should_not_print_a_key_in_the_problems_of_a_file_that_misplaces_it_everywhere() {
        String yaml = """
                channels:
                  - name: zhipu
                    baseUrl: https://example.com/v1
                    models: [glm-4]
                    strategy: sk-live-SECRET123
                    timeout: ${LIVE_KEY}
                    fallback: [sk-live-SECRET123]
                    keys:
                      - key: sk-live-SECRET123
                        weight: sk-live-SECRET123
                        rpm: ${LIVE_KEY}
                      - key: ${LIVE_KEY}
                      - sk-live-SECRET123
                tenants:
                  - name: team-a
                    token: sk-live-SECRET123
                    channels: [sk-live-SECRET123]
                  - name: team-b
                    token: sk-live-SECRET123
                admin:
                  token: sk-live-SECRET123
                """;

        ConfigException e = failureOf(yaml);

        assertNoSecretIn(e);
        assertThat(e.problems()).contains(
                "channels[0].strategy: unknown strategy '***' "
                        + "(use round-robin, weighted-random, least-in-flight, latency-weighted)",
                "channels[0].timeout: invalid duration '***' (use e.g. 500ms, 30s, 5m)",
                "channels[0].keys[0].weight: must be an integer",
                "channels[0].keys[1].key: same key as keys[0]",
                "channels[0].keys[2]: must be a mapping",
                "tenants[1].token: same token as tenants[0]",
                "channels[0].fallback[0]: unknown channel '***'",
                "tenants[0].channels[0]: unknown channel '***'");
    }

    @Test
    void should_not_print_a_key_from_the_line_of_a_yaml_syntax_error() {
        String yaml = """
                channels:
                  - name: zhipu
                    keys:
                      - key: "sk-live-SECRET123
                """;

        assertNoSecretIn(failureOf(yaml));
    }

    @Test
    void should_not_print_a_key_from_a_misindented_line() {
        String yaml = """
                channels:
                  - name: zhipu
                	key: sk-live-SECRET123
                """;

        assertNoSecretIn(failureOf(yaml));
    }

    @Test
    void should_leave_keys_and_tokens_out_of_to_string() {
        KeyConfig key = new KeyConfig(SECRET, "team-pro", 5, 600, null, null, null, null);
        TenantConfig tenant = new TenantConfig("team-a", SECRET, 600, List.of("zhipu"));
        AdminConfig admin = new AdminConfig(SECRET);
        ChannelConfig channel = new ChannelConfig("zhipu", "https://example.com", List.of("*"), Map.of(), "round-robin",
                java.time.Duration.ofSeconds(60), 3, java.time.Duration.ofSeconds(60), 5, java.time.ZoneOffset.UTC,
                List.of(key), List.of(), BreakerSettings.defaults(), Api.DEFAULT, dev.keypool.auth.ProviderAuth.BEARER,
                Map.of());
        GatewayConfig config = new GatewayConfig(List.of(channel), List.of(tenant), admin, QueueConfig.DEFAULT, null);

        assertThat(key).hasToString("KeyConfig[label=team-pro, weight=5, tenant=null]");
        assertThat(tenant.toString()).doesNotContain(SECRET).contains("team-a");
        assertThat(admin.toString()).doesNotContain(SECRET);
        assertThat(config.toString()).doesNotContain(SECRET);
    }
}
