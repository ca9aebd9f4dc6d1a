package dev.keypool.config;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import static dev.keypool.config.ConfigFixtures.channelWith;
import static dev.keypool.config.ConfigFixtures.parse;
import static dev.keypool.config.ConfigFixtures.problemsOf;
import static org.assertj.core.api.Assertions.assertThat;

class ChannelValidationTest {

    private static final String THREE_CHANNELS = """
            channels:
              - name: zhipu
                baseUrl: https://a.example/v1
                models: [glm-4]
                keys: [{key: sk-a}]
                fallback: %s
              - name: dashscope
                baseUrl: https://b.example/v1
                models: [qwen-max]
                keys: [{key: sk-b}]
              - name: %s
                baseUrl: https://c.example/v1
                models: [deepseek-chat]
                keys: [{key: sk-c}]
            """;

    @Test
    void should_require_a_channels_list_in_an_empty_file() {
        assertThat(problemsOf("")).containsExactly("channels: is required");
        assertThat(problemsOf("# only a comment\n")).containsExactly("channels: is required");
    }

    @Test
    void should_reject_an_empty_or_misshapen_channels_list() {
        assertThat(problemsOf("channels: []")).containsExactly("channels: must not be empty");
        assertThat(problemsOf("channels: {zhipu: {}}")).containsExactly("channels: must be a list");
        assertThat(problemsOf("channels: [zhipu]")).containsExactly("channels[0]: must be a mapping");
        assertThat(problemsOf("just text")).containsExactly("top level: must be a mapping");
    }

    @Test
    void should_report_unknown_fields_at_every_level() {
        assertThat(problemsOf(channelWith("strategyy: round-robin") + "tenant: []\n")).containsExactly(
                "tenant: unknown field",
                "channels[0].strategyy: unknown field");
    }

    @Test
    void should_require_a_channel_name() {
        assertThat(problemsOf(channelWith("").replace("- name: zhipu\n    ", "- ")))
                .containsExactly("channels[0].name: is required");
    }

    @Test
    void should_reject_a_channel_name_outside_lowercase_letters_digits_and_dashes() {
        assertThat(problemsOf(channelWith("").replace("name: zhipu", "name: Zhipu AI")))
                .containsExactly("channels[0].name: invalid channel name 'Zhipu AI' (use a-z, 0-9 and '-')");
    }

    @Test
    void should_report_a_duplicate_channel_name_at_the_second_occurrence() {
        assertThat(problemsOf(THREE_CHANNELS.formatted("[]", "zhipu")))
                .containsExactly("channels[2].name: duplicate channel name 'zhipu'");
    }

    @ParameterizedTest(name = "baseUrl: {0}")
    @CsvSource(delimiter = '|', value = {
            "ftp://example.com/v1   | must be an absolute http or https URL",
            "example.com/v1         | must be an absolute http or https URL",
            "https://               | must be an absolute http or https URL",
            "'http://exa mple.com'  | must be an absolute http or https URL",
            "'[a, b]'               | must be a string",
            "'\"\"'                 | must not be blank"})
    void should_reject_a_base_url_that_is_not_absolute_http(String baseUrl, String problem) {
        assertThat(problemsOf(channelWith("").replace("https://example.com/v1", baseUrl)))
                .containsExactly("channels[0].baseUrl: " + problem);
    }

    @Test
    void should_require_a_base_url() {
        assertThat(problemsOf(channelWith("").replace("    baseUrl: https://example.com/v1\n", "")))
                .containsExactly("channels[0].baseUrl: is required");
    }

    @Test
    void should_accept_http_and_https_base_urls() {
        assertThat(parse(channelWith("").replace("https://example.com/v1", "HTTP://localhost:8080")).channels())
                .singleElement().extracting(ChannelConfig::baseUrl).isEqualTo("HTTP://localhost:8080");
    }

    @ParameterizedTest(name = "models: {0}")
    @CsvSource(delimiter = '|', value = {
            "[]               | channels[0].models: must not be empty",
            "glm-4            | channels[0].models: must be a list",
            "'[glm-4, \"  \"]' | channels[0].models[1]: must not be blank",
            "'[glm-4, [x]]'   | channels[0].models[1]: must be a string"})
    void should_require_a_non_empty_list_of_model_names(String models, String problem) {
        assertThat(problemsOf(channelWith("").replace("[glm-4]", models))).containsExactly(problem);
    }

    @Test
    void should_require_models() {
        assertThat(problemsOf(channelWith("").replace("    models: [glm-4]\n", "")))
                .containsExactly("channels[0].models: is required");
    }

    @Test
    void should_require_model_map_to_map_names_to_names() {
        assertThat(problemsOf(channelWith("modelMap: [gpt-4o]"))).containsExactly("channels[0].modelMap: must be a mapping");
        assertThat(problemsOf(channelWith("modelMap: {gpt-4o: [glm-4]}")))
                .containsExactly("channels[0].modelMap.gpt-4o: must be a string");
        assertThat(problemsOf(channelWith("modelMap: {gpt-4o: ''}")))
                .containsExactly("channels[0].modelMap.gpt-4o: must not be blank");
    }

    @Test
    void should_reject_an_unknown_strategy_and_list_the_known_ones() {
        assertThat(problemsOf(channelWith("strategy: fastest"))).containsExactly("channels[0].strategy: unknown strategy "
                + "'fastest' (use round-robin, weighted-random, least-in-flight, latency-weighted)");
    }

    @ParameterizedTest(name = "strategy: {0}")
    @CsvSource({"round-robin", "weighted-random", "least-in-flight", "latency-weighted"})
    void should_accept_every_known_strategy(String strategy) {
        assertThat(parse(channelWith("strategy: " + strategy)).channels().get(0).strategy()).isEqualTo(strategy);
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
            "timeout: soon     | channels[0].timeout: invalid duration 'soon' (use e.g. 500ms, 30s, 5m)",
            "timeout: -5s      | channels[0].timeout: invalid duration '-5s' (use e.g. 500ms, 30s, 5m)",
            "timeout: 0        | channels[0].timeout: must be > 0",
            "cooldown: 0ms     | channels[0].cooldown: must be > 0",
            "cooldown: [60s]   | channels[0].cooldown: must be a duration (e.g. 500ms, 30s, 5m)",
            "maxRetries: -1    | channels[0].maxRetries: must be >= 0",
            "maxRetries: three | channels[0].maxRetries: must be an integer",
            "disableAfter: 0   | channels[0].disableAfter: must be >= 1",
            "disableAfter: 2.5 | channels[0].disableAfter: must be an integer"})
    void should_check_the_channel_settings(String field, String problem) {
        assertThat(problemsOf(channelWith(field))).containsExactly(problem);
    }

    @Test
    void should_allow_no_retries() {
        assertThat(parse(channelWith("maxRetries: 0")).channels().get(0).maxRetries()).isZero();
    }

    @Test
    void should_report_a_fallback_to_an_unknown_channel_with_its_index() {
        assertThat(problemsOf(THREE_CHANNELS.formatted("[dashscope, deepsek]", "deepseek")))
                .containsExactly("channels[0].fallback[1]: unknown channel 'deepsek'");
    }

    @Test
    void should_reject_a_fallback_to_the_channel_itself() {
        assertThat(problemsOf(THREE_CHANNELS.formatted("[zhipu]", "deepseek")))
                .containsExactly("channels[0].fallback[0]: a channel cannot fall back to itself");
    }

    @Test
    void should_reject_a_channel_listed_twice_in_a_fallback_chain() {
        assertThat(problemsOf(THREE_CHANNELS.formatted("[deepseek, dashscope, deepseek]", "deepseek")))
                .containsExactly("channels[0].fallback[2]: duplicate channel 'deepseek'");
    }

    @Test
    void should_accept_a_fallback_to_a_channel_defined_later() {
        assertThat(parse(THREE_CHANNELS.formatted("[deepseek, dashscope]", "deepseek")).channels().get(0).fallback())
                .containsExactly("deepseek", "dashscope");
    }

    @Test
    void should_require_fallback_to_be_a_list() {
        assertThat(problemsOf(THREE_CHANNELS.formatted("dashscope", "deepseek")))
                .containsExactly("channels[0].fallback: must be a list");
    }
}
