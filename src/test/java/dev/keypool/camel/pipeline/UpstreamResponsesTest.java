package dev.keypool.camel.pipeline;

import java.nio.charset.StandardCharsets;
import java.util.List;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** The provider answer's {@code usage} object, built by hand from the parser: the tree Jackson's readTree builds. */
class UpstreamResponsesTest {

    private static final ObjectMapper MAPPER = new ObjectMapper();

    @Test
    void should_build_the_usage_object_as_jacksons_read_tree_does() throws Exception {
        List<String> answers = List.of(
                "{\"id\":\"x\",\"choices\":[{\"message\":{\"content\":\"usage\"}}],"
                        + "\"usage\":{\"prompt_tokens\":9,\"completion_tokens\":1,\"total_tokens\":10}}",
                "{\"usage\":{\"prompt_tokens\":1000,\"completion_tokens\":50,"
                        + "\"prompt_tokens_details\":{\"cached_tokens\":800,\"audio_tokens\":null}}}",
                "{\"usage\":{\"input_tokens\":11,\"cache_creation_input_tokens\":2,\"cache_read_input_tokens\":3,"
                        + "\"output_tokens\":7,\"server_tool_use\":{\"web_search_requests\":0},"
                        + "\"service_tier\":\"standard\"}}",
                "{\"usage\":{\"prompt_tokens\":\"12\",\"completion_tokens\":3.7,\"big\":123456789012345678901234567890,"
                        + "\"long\":12345678901,\"flags\":[true,false,null,{\"a\":[1,2.5]}],\"cached\":true}}",
                "{\"usage\":{\"prompt_tokens\":1,\"prompt_tokens\":2}}",
                "{\"usage\":null}",
                "{\"usage\":[1,2]}",
                "{\"usage\":{}}",
                "{\"id\":\"no usage\"}");
        for (String answer : answers) {
            byte[] body = answer.getBytes(StandardCharsets.UTF_8);
            JsonNode expected = MAPPER.readTree(body).path("usage");

            assertThat(new UpstreamResponses(MAPPER).usage(body)).as(answer).isEqualTo(expected);
        }
    }

    @Test
    void should_find_no_usage_in_an_answer_that_is_not_json() {
        UpstreamResponses responses = new UpstreamResponses(MAPPER);

        assertThat(responses.usage("speech audio".getBytes(StandardCharsets.UTF_8)).isMissingNode()).isTrue();
        assertThat(responses.usage("{\"usage\":{\"prompt_tokens\":1".getBytes(StandardCharsets.UTF_8)).isMissingNode())
                .isTrue();
    }
}
