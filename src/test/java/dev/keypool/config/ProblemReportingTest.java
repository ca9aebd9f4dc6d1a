package dev.keypool.config;

import java.nio.file.Path;

import org.junit.jupiter.api.Test;

import static dev.keypool.config.ConfigFixtures.ENV;
import static dev.keypool.config.ConfigFixtures.channelWith;
import static dev.keypool.config.ConfigFixtures.problemsOf;
import static dev.keypool.config.ConfigFixtures.resource;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

class ProblemReportingTest {

    @Test
    void should_report_every_problem_of_the_file_in_one_exception() {
        Path file = resource("invalid.yaml");

        ConfigException e = catchThrowableOfType(ConfigException.class, () -> new ConfigLoader(ENV::get).load(file));

        assertThat(e.problems()).containsExactly(
                "channels[0].strategyy: unknown field",
                "channels[0].timeout: invalid duration 'soon' (use e.g. 500ms, 30s, 5m)",
                "channels[0].keys[1].key: environment variable ZHIPU_KEY_MISSING is not set",
                "channels[1].baseUrl: must be an absolute http or https URL",
                "channels[1].keys[0].weight: must be >= 1",
                "channels[0].fallback[0]: unknown channel 'deepsek'");
        assertThat(e.getMessage()).isEqualTo("Invalid KeyPool configuration in " + file + ":"
                + "\n  - channels[0].strategyy: unknown field"
                + "\n  - channels[0].timeout: invalid duration 'soon' (use e.g. 500ms, 30s, 5m)"
                + "\n  - channels[0].keys[1].key: environment variable ZHIPU_KEY_MISSING is not set"
                + "\n  - channels[1].baseUrl: must be an absolute http or https URL"
                + "\n  - channels[1].keys[0].weight: must be >= 1"
                + "\n  - channels[0].fallback[0]: unknown channel 'deepsek'");
    }

    @Test
    void should_name_the_source_in_the_message() {
        ConfigException e = catchThrowableOfType(ConfigException.class,
                () -> new ConfigLoader(ENV::get).parse("channels: []", "inline.yaml"));

        assertThat(e).hasMessage("Invalid KeyPool configuration in inline.yaml:\n  - channels: must not be empty");
    }

    @Test
    void should_report_a_yaml_syntax_error_with_line_and_column() {
        String yaml = """
                channels:
                  - name: zhipu
                   baseUrl: https://example.com
                """;

        assertThat(problemsOf(yaml)).singleElement().asString()
                .startsWith("line 3, column 4: YAML syntax error: ")
                .contains("expected <block end>");
    }

    @Test
    void should_report_a_field_written_twice_instead_of_keeping_the_last() {
        String yaml = channelWith("timeout: 10s\ntimeout: 20s");

        assertThat(problemsOf(yaml)).singleElement().asString()
                .startsWith("line 8, column ")
                .endsWith(": duplicate field 'timeout'");
    }

    @Test
    void should_report_wrong_types_as_problems_not_exceptions() {
        String yaml = """
                channels:
                  - name: [zhipu]
                    baseUrl: {url: https://example.com}
                    models: {glm-4: yes}
                    maxRetries: [3]
                    keys: {key: sk-one}
                """;

        assertThat(problemsOf(yaml)).containsExactly(
                "channels[0].name: must be a string",
                "channels[0].baseUrl: must be a string",
                "channels[0].models: must be a list",
                "channels[0].maxRetries: must be an integer",
                "channels[0].keys: must be a list");
    }

    @Test
    void should_report_a_missing_file_with_its_name() {
        Path missing = Path.of("target", "no-such-keypool.yaml");

        ConfigException e = catchThrowableOfType(ConfigException.class, () -> new ConfigLoader(ENV::get).load(missing));

        assertThat(e.getMessage()).startsWith("Invalid KeyPool configuration in " + missing + ":\n  - file not found")
                .contains(missing.toAbsolutePath().toString());
        assertThat(e.problems()).hasSize(1);
    }

    @Test
    void should_hand_out_an_unmodifiable_problem_list() {
        ConfigException e = new ConfigException("x.yaml", new java.util.ArrayList<>(java.util.List.of("a: b")));

        assertThat(e.problems()).isUnmodifiable();
    }
}
