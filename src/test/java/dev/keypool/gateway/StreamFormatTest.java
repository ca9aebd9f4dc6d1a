package dev.keypool.gateway;

import java.nio.charset.StandardCharsets;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.keypool.config.Api;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class StreamFormatTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    @Test
    void should_end_a_responses_stream_at_its_terminal_events_with_their_usage() {
        StreamEvent completed = StreamFormat.RESPONSES.read(bytes("event: response.completed\ndata: {\"type\":\"response.completed\","
                + "\"sequence_number\":9,\"response\":{\"usage\":{\"input_tokens\":12,\"output_tokens\":30}}}\n\n"), JSON);
        assertThat(completed).isEqualTo(new StreamEvent(true, false, 12, 30, true));
        assertThat(StreamFormat.RESPONSES.read(bytes("event: response.incomplete\ndata: {\"type\":\"response.incomplete\","
                + "\"response\":{}}\n\n"), JSON).done()).isTrue();
        assertThat(StreamFormat.RESPONSES.read(bytes("data: {\"type\":\"response.failed\",\"response\":{}}\n\n"), JSON).done()).isTrue();
    }

    @Test
    void should_not_end_a_responses_stream_at_a_delta_that_mentions_the_end_or_at_a_done_line() {
        assertThat(StreamFormat.RESPONSES.read(bytes("event: response.output_text.delta\ndata: {\"type\":"
                + "\"response.output_text.delta\",\"delta\":\"response.completed\"}\n\n"), JSON).done()).isFalse();
        assertThat(StreamFormat.RESPONSES.read(bytes("data: [DONE]\n\n"), JSON).done()).isFalse();
        assertThat(StreamFormat.CHAT.read(bytes("data: [DONE]\n\n"), JSON).done()).isTrue();
    }

    @Test
    void should_write_the_error_event_of_each_format() {
        assertThat(StreamFormat.RESPONSES.errorEvent(JSON, "broke", 4)).isEqualTo("event: error\ndata: {\"type\":\"error\","
                + "\"code\":\"stream_interrupted\",\"message\":\"broke\",\"param\":null,\"sequence_number\":4}\n\n");
        assertThat(StreamFormat.CHAT.errorEvent(JSON, "broke", 4)).isEqualTo("data: {\"error\":{\"message\":\"broke\","
                + "\"type\":\"upstream_error\",\"code\":\"stream_interrupted\"}}\n\n");
        assertThat(StreamFormat.of(Api.RESPONSES)).isEqualTo(StreamFormat.RESPONSES);
        assertThat(StreamFormat.of(Api.COMPLETIONS)).isEqualTo(StreamFormat.CHAT);
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
