package dev.keypool.component;

import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** The request JSON the keypool component makes of a host's body. */
class OpenAiRequestsTest {

    private final OpenAiRequests requests = new OpenAiRequests(new ObjectMapper());

    private String json(Object body, String operation, String model) {
        return new String(requests.toJson(body, operation, model), StandardCharsets.UTF_8);
    }

    @Test
    void should_make_plain_text_the_user_message_of_a_chat_request() {
        assertThat(json("Say hi", "chat", "m")).isEqualTo("{\"messages\":[{\"role\":\"user\",\"content\":\"Say hi\"}],\"model\":\"m\"}");
    }

    @Test
    void should_make_plain_text_the_input_of_an_embeddings_request() {
        assertThat(json("a text", "embeddings", "e")).isEqualTo("{\"input\":\"a text\",\"model\":\"e\"}");
    }

    @Test
    void should_send_a_json_request_as_it_is_without_a_model_option() {
        String request = "{\"model\":\"x\", \"messages\":[]}";
        assertThat(json(request, "chat", null)).isEqualTo(request);
        assertThat(json(request.getBytes(StandardCharsets.UTF_8), "chat", null)).isEqualTo(request);
    }

    @Test
    void should_replace_the_model_of_a_json_or_map_request_with_the_endpoints() {
        assertThat(json("{\"model\":\"x\",\"messages\":[]}", "chat", "m")).isEqualTo("{\"model\":\"m\",\"messages\":[]}");
        Map<String, Object> map = new LinkedHashMap<>();
        map.put("input", List.of("a", "b"));
        assertThat(json(map, "embeddings", "e")).isEqualTo("{\"input\":[\"a\",\"b\"],\"model\":\"e\"}");
    }

    @Test
    void should_leave_a_broken_or_empty_request_for_the_pipeline_to_refuse() {
        assertThat(json("{not json", "chat", "m")).isEqualTo("{not json");
        assertThat(json(null, "chat", "m")).isEmpty();
        assertThat(json("  ", "chat", "m")).isEmpty();
    }
}
