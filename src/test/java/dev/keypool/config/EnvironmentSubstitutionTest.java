package dev.keypool.config;

import java.util.Map;
import java.util.function.Function;

import org.junit.jupiter.api.Test;

import static dev.keypool.config.ConfigFixtures.channelWith;
import static dev.keypool.config.ConfigFixtures.parse;
import static dev.keypool.config.ConfigFixtures.problemsOf;
import static org.assertj.core.api.Assertions.assertThat;

class EnvironmentSubstitutionTest {

    private static final String TEMPLATED = """
            channels:
              - name: ${CHANNEL:-zhipu}
                baseUrl: http://${HOST}:${PORT:-8080}/v1
                models: [glm-4]
                timeout: ${TIMEOUT:-30s}
                keys:
                  - key: ${KEY}
                    weight: ${WEIGHT:-2}
            """;

    @Test
    void should_read_a_camel_or_keypool_variable_as_the_setting_of_that_name_first() {
        Map<String, String> settings = Map.of("camel.server.port", "9090", "keypool.retry-backoff-ms", "5");
        Map<String, String> env = Map.of("CAMEL_SERVER_PORT", "8081", "CAMEL_MAIN_NAME", "from-env", "KEY", "sk-env");

        Function<String, String> variables = ConfigLoader.variables(settings::get, env::get);

        // -Dcamel.server.port=9090 (or application.properties) is the port the service really has
        assertThat(variables.apply("CAMEL_SERVER_PORT")).isEqualTo("9090");
        // no such setting: the environment
        assertThat(variables.apply("CAMEL_MAIN_NAME")).isEqualTo("from-env");
        // any other name is only ever the environment, even where a setting looks alike
        assertThat(variables.apply("KEY")).isEqualTo("sk-env");
        assertThat(variables.apply("KEYPOOL_UNSET")).isNull();
    }

    @Test
    void should_replace_placeholders_from_the_environment() {
        ChannelConfig channel = parse(Map.of("HOST", "llm.local", "PORT", "9000", "KEY", "sk-env", "WEIGHT", "7"),
                TEMPLATED).channels().get(0);

        assertThat(channel.baseUrl()).isEqualTo("http://llm.local:9000/v1");
        assertThat(channel.keys().get(0).key()).isEqualTo("sk-env");
        assertThat(channel.keys().get(0).weight()).as("numbers may come from the environment").isEqualTo(7);
    }

    @Test
    void should_use_the_default_when_the_variable_is_unset() {
        ChannelConfig channel = parse(Map.of("HOST", "llm.local", "KEY", "sk-env"), TEMPLATED).channels().get(0);

        assertThat(channel.name()).isEqualTo("zhipu");
        assertThat(channel.baseUrl()).isEqualTo("http://llm.local:8080/v1");
        assertThat(channel.timeout()).hasSeconds(30);
        assertThat(channel.keys().get(0).weight()).isEqualTo(2);
    }

    @Test
    void should_use_the_default_when_the_variable_is_empty() {
        ChannelConfig channel = parse(Map.of("HOST", "llm.local", "PORT", "", "KEY", "sk-env"), TEMPLATED)
                .channels().get(0);

        assertThat(channel.baseUrl()).isEqualTo("http://llm.local:8080/v1");
    }

    @Test
    void should_report_missing_env_var_with_its_path() {
        String yaml = """
                channels:
                  - name: zhipu
                    baseUrl: https://example.com/v1
                    models: [glm-4]
                    keys:
                      - key: ${ZHIPU_KEY_1}
                      - key: ${ZHIPU_KEY_MISSING}
                """;

        assertThat(problemsOf(yaml)).containsExactly(
                "channels[0].keys[1].key: environment variable ZHIPU_KEY_MISSING is not set");
    }

    @Test
    void should_report_every_missing_variable_of_one_value() {
        String yaml = TEMPLATED.replace("${PORT:-8080}", "${PORT}");

        assertThat(problemsOf(Map.of("KEY", "sk-env"), yaml)).containsExactly(
                "channels[0].baseUrl: environment variable HOST is not set",
                "channels[0].baseUrl: environment variable PORT is not set");
    }

    @Test
    void should_not_report_a_missing_variable_a_second_time_as_a_required_value() {
        assertThat(problemsOf(Map.of("HOST", "h"), TEMPLATED))
                .containsExactly("channels[0].keys[0].key: environment variable KEY is not set");
    }

    @Test
    void should_take_a_variable_value_literally() {
        GatewayConfig config = parse(Map.of("KEY", "sk-$1-${NOT_A_PLACEHOLDER}\\"), channelWith("").replace("sk-one", "${KEY}"));

        assertThat(config.channels().get(0).keys().get(0).key()).isEqualTo("sk-$1-${NOT_A_PLACEHOLDER}\\");
    }

    @Test
    void should_trim_a_stray_newline_from_a_variable() {
        GatewayConfig config = parse(Map.of("KEY", "sk-env\n"), channelWith("").replace("sk-one", "${KEY}"));

        assertThat(config.channels().get(0).keys().get(0).key()).isEqualTo("sk-env");
    }

    @Test
    void should_use_the_process_environment_by_default() {
        String path = System.getenv("PATH");
        GatewayConfig config = new ConfigLoader().parse(channelWith("").replace("sk-one", "\"${PATH}\""), "test.yaml");

        assertThat(config.channels().get(0).keys().get(0).key()).isEqualTo(path.trim());
    }
}
