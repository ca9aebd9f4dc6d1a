package dev.keypool.gateway;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** The prompt-cache tokens of each provider's usage object: read from the cache, and (Anthropic) written to it. */
class TokenUsageTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    @Test
    void should_read_openais_cached_tokens_as_part_of_the_prompt() throws Exception {
        TokenUsage usage = TokenUsage.of(json("{\"prompt_tokens\":1000,\"completion_tokens\":50,"
                + "\"prompt_tokens_details\":{\"cached_tokens\":800}}"));

        assertThat(usage).isEqualTo(new TokenUsage(1000, 50, 800, 0));
    }

    @Test
    void should_read_the_responses_apis_cached_input_tokens() throws Exception {
        TokenUsage usage = TokenUsage.of(json("{\"input_tokens\":300,\"output_tokens\":20,"
                + "\"input_tokens_details\":{\"cached_tokens\":256}}"));

        assertThat(usage).isEqualTo(new TokenUsage(300, 20, 256, 0));
    }

    @Test
    void should_add_anthropics_cache_reads_and_writes_to_the_prompt_and_keep_them_apart() throws Exception {
        TokenUsage usage = TokenUsage.of(json("{\"input_tokens\":11,\"cache_creation_input_tokens\":2,"
                + "\"cache_read_input_tokens\":3,\"output_tokens\":7}"));

        assertThat(usage).isEqualTo(new TokenUsage(16, 7, 3, 2));
    }

    @Test
    void should_count_no_cached_tokens_when_the_provider_reports_none() throws Exception {
        assertThat(TokenUsage.of(json("{\"prompt_tokens\":11,\"completion_tokens\":7}")))
                .isEqualTo(new TokenUsage(11, 7, 0, 0));
    }

    private static JsonNode json(String text) throws Exception {
        return JSON.readTree(text);
    }
}
