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
        assertThat(completed).isEqualTo(new StreamEvent(true, false, 12, 30, true, false));
        assertThat(StreamFormat.RESPONSES.read(bytes("event: response.incomplete\ndata: {\"type\":\"response.incomplete\","
                + "\"response\":{}}\n\n"), JSON).done()).isTrue();
        assertThat(StreamFormat.RESPONSES.read(bytes("data: {\"type\":\"response.failed\",\"response\":{}}\n\n"), JSON).done()).isTrue();
    }

    @Test
    void should_end_an_incomplete_response_whose_text_mentions_another_end_event() {
        StreamEvent incomplete = StreamFormat.RESPONSES.read(bytes("event: response.incomplete\ndata: {\"type\":"
                + "\"response.incomplete\",\"response\":{\"output\":[{\"content\":[{\"text\":\"a stream ends with "
                + "response.completed\"}]}],\"usage\":{\"input_tokens\":5,\"output_tokens\":7}}}\n\n"), JSON);

        assertThat(incomplete).isEqualTo(new StreamEvent(true, false, 5, 7, true, false));
    }

    @Test
    void should_say_that_a_provider_ended_its_stream_with_a_failure() {
        StreamEvent failed = StreamFormat.RESPONSES.read(bytes("event: response.failed\ndata: {\"type\":\"response.failed\","
                + "\"response\":{\"usage\":{\"input_tokens\":5,\"output_tokens\":0}}}\n\n"), JSON);
        StreamEvent responsesError = StreamFormat.RESPONSES.read(bytes("event: error\ndata: {\"type\":\"error\","
                + "\"code\":\"server_error\",\"message\":\"boom\"}\n\n"), JSON);
        StreamEvent messagesError = StreamFormat.MESSAGES.read(bytes("event: error\ndata: {\"type\":\"error\","
                + "\"error\":{\"type\":\"overloaded_error\",\"message\":\"Overloaded\"}}\n\n"), JSON);

        assertThat(failed).isEqualTo(new StreamEvent(true, false, 5, 0, true, true));
        assertThat(responsesError.done()).isTrue();
        assertThat(responsesError.failed()).isTrue();
        assertThat(messagesError.done()).isTrue();
        assertThat(messagesError.failed()).isTrue();
        assertThat(StreamFormat.MESSAGES.read(bytes("event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n"), JSON).failed())
                .isFalse();
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

    @Test
    void should_read_an_anthropic_stream_usage_from_message_start_and_message_delta_and_end_at_message_stop() {
        StreamEvent start = StreamFormat.MESSAGES.read(bytes("event: message_start\ndata: {\"type\":\"message_start\","
                + "\"message\":{\"id\":\"msg_1\",\"usage\":{\"input_tokens\":10,\"cache_creation_input_tokens\":4,"
                + "\"cache_read_input_tokens\":6,\"output_tokens\":1}}}\n\n"), JSON);
        // 6 read from the prompt cache, 4 written to it: both part of the prompt's 20
        assertThat(start).isEqualTo(new StreamEvent(false, false, 20, 1, true, false, 6, 4));
        StreamEvent delta = StreamFormat.MESSAGES.read(bytes("event: message_delta\ndata: {\"type\":\"message_delta\","
                + "\"delta\":{\"stop_reason\":\"end_turn\"},\"usage\":{\"output_tokens\":15}}\n\n"), JSON);
        // message_delta reports only the answer: the prompt side stays as message_start said
        assertThat(delta).isEqualTo(new StreamEvent(false, false, TokenUsage.ABSENT, 15, true, false));
        assertThat(StreamFormat.MESSAGES.read(bytes("event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n"), JSON).done())
                .isTrue();
        // a delta whose text names the end, a ping, and chat's [DONE] end nothing
        assertThat(StreamFormat.MESSAGES.read(bytes("event: content_block_delta\ndata: {\"type\":\"content_block_delta\","
                + "\"delta\":{\"type\":\"text_delta\",\"text\":\"message_stop\"}}\n\n"), JSON)).isEqualTo(StreamEvent.OTHER);
        assertThat(StreamFormat.MESSAGES.read(bytes("event: ping\ndata: {\"type\": \"ping\"}\n\n"), JSON).done()).isFalse();
        assertThat(StreamFormat.MESSAGES.read(bytes("data: [DONE]\n\n"), JSON).done()).isFalse();
        // a provider that names its events only in the data
        assertThat(StreamFormat.MESSAGES.read(bytes("data: {\"type\":\"message_stop\"}\n\n"), JSON).done()).isTrue();
    }

    @Test
    void should_write_anthropics_error_event() {
        assertThat(StreamFormat.MESSAGES.errorEvent(JSON, "broke", 4)).isEqualTo("event: error\ndata: {\"type\":\"error\","
                + "\"error\":{\"type\":\"api_error\",\"message\":\"broke\"}}\n\n");
        assertThat(StreamFormat.of(Api.MESSAGES)).isEqualTo(StreamFormat.MESSAGES);
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
