package dev.keypool.gateway;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class SseEventBufferTest {

    private final SseEventBuffer buffer = new SseEventBuffer(64);

    private List<String> feed(String text) throws AnswerTooLarge {
        byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
        List<String> events = new ArrayList<>();
        buffer.feed(bytes, 0, bytes.length).forEach(e -> events.add(new String(e, StandardCharsets.UTF_8)));
        return events;
    }

    @Test
    void should_return_whole_events_however_the_bytes_are_cut() throws Exception {
        assertThat(feed("data: {\"a\":")).isEmpty();
        assertThat(feed("1}\n")).isEmpty();
        assertThat(feed("\ndata: [DO")).containsExactly("data: {\"a\":1}\n\n");
        assertThat(feed("NE]\n\n")).containsExactly("data: [DONE]\n\n");
    }

    @Test
    void should_end_events_on_crlf_blank_lines_too() throws Exception {
        assertThat(feed("data: x\r\n\r\ndata: y\r\n\r\n")).containsExactly("data: x\r\n\r\n", "data: y\r\n\r\n");
    }

    @Test
    void should_keep_multi_line_events_together() throws Exception {
        assertThat(feed("event: message\ndata: x\n\n")).containsExactly("event: message\ndata: x\n\n");
    }

    @Test
    void should_refuse_an_event_over_its_limit_and_take_one_at_it() throws Exception {
        String atLimit = "data: " + "x".repeat(56) + "\n\n";
        assertThat(atLimit).hasSize(64);
        assertThat(feed(atLimit)).containsExactly(atLimit);

        assertThatThrownBy(() -> feed("data: " + "y".repeat(57) + "\n\n"))
                .isInstanceOf(AnswerTooLarge.class).hasMessage("stream event over 64 bytes");
    }
}
