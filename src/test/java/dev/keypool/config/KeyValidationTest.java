package dev.keypool.config;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import static dev.keypool.config.ConfigFixtures.channelWith;
import static dev.keypool.config.ConfigFixtures.keyWith;
import static dev.keypool.config.ConfigFixtures.problemsOf;
import static org.assertj.core.api.Assertions.assertThat;

class KeyValidationTest {

    @Test
    void should_require_at_least_one_key() {
        assertThat(problemsOf(channelWith("").replace("    keys:\n      - key: sk-one\n", "")))
                .containsExactly("channels[0].keys: is required");
        assertThat(problemsOf(channelWith("").replace("keys:\n      - key: sk-one", "keys: []")))
                .containsExactly("channels[0].keys: must not be empty");
    }

    @Test
    void should_require_each_key_to_be_a_mapping() {
        assertThat(problemsOf(channelWith("").replace("- key: sk-one", "- sk-one")))
                .containsExactly("channels[0].keys[0]: must be a mapping");
    }

    @Test
    void should_require_a_non_blank_key() {
        assertThat(problemsOf(keyWith("label: team"))).containsExactly("channels[0].keys[0].key: is required");
        assertThat(problemsOf(keyWith("key: '  '"))).containsExactly("channels[0].keys[0].key: must not be blank");
    }

    @Test
    void should_report_a_weight_below_one_with_the_full_path() {
        String yaml = """
                channels:
                  - name: zhipu
                    baseUrl: https://a.example/v1
                    models: [glm-4]
                    keys: [{key: sk-a}]
                  - name: deepseek
                    baseUrl: https://b.example/v1
                    models: [deepseek-chat]
                    keys:
                      - key: sk-b
                        weight: 0
                """;

        assertThat(problemsOf(yaml)).containsExactly("channels[1].keys[0].weight: must be >= 1");
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
            "weight: heavy       | channels[0].keys[0].weight: must be an integer",
            "weight: 1.5         | channels[0].keys[0].weight: must be an integer",
            "weight: [5]         | channels[0].keys[0].weight: must be an integer",
            "rpm: 0              | channels[0].keys[0].rpm: must be >= 1",
            "tpm: 0              | channels[0].keys[0].tpm: must be >= 1",
            "rpd: -3             | channels[0].keys[0].rpd: must be >= 1",
            "tpmMonth: 0         | channels[0].keys[0].tpmMonth: must be >= 1",
            "rpm: 3000000000     | channels[0].keys[0].rpm: must be <= 2147483647",
            "label: [a, b]       | channels[0].keys[0].label: must be a string",
            "limit: 5            | channels[0].keys[0].limit: unknown field"})
    void should_check_the_key_settings(String field, String problem) {
        assertThat(problemsOf(keyWith("key: sk-one\n" + field))).containsExactly(problem);
    }

    @Test
    void should_report_a_duplicate_key_by_index() {
        String yaml = channelWith("").replace("      - key: sk-one\n",
                "      - key: sk-one\n      - key: sk-two\n      - key: sk-one\n");

        assertThat(problemsOf(yaml)).containsExactly("channels[0].keys[2].key: same key as keys[0]");
    }

    @Test
    void should_allow_the_same_key_in_two_channels() {
        String yaml = """
                channels:
                  - {name: a, baseUrl: 'https://a.example', models: ['*'], keys: [{key: sk-shared}]}
                  - {name: b, baseUrl: 'https://b.example', models: ['*'], keys: [{key: sk-shared}]}
                """;

        assertThat(ConfigFixtures.parse(yaml).channels()).hasSize(2);
    }
}
