package dev.keypool.gateway;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.lang.management.ManagementFactory;
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

    @Test
    void should_read_events_larger_than_its_read_buffer_whole_and_end_with_null() throws Exception {
        SseEventBuffer reader = new SseEventBuffer(1 << 20);
        String large = "data: " + "z".repeat(3 * SseEventBuffer.READ_BYTES) + "\n\n";
        InputStream in = new ByteArrayInputStream((large + "data: [DONE]\n\n").getBytes(StandardCharsets.UTF_8));

        List<String> events = new ArrayList<>();
        for (List<byte[]> read = reader.read(in); read != null; read = reader.read(in)) {
            read.forEach(e -> events.add(new String(e, StandardCharsets.UTF_8)));
        }

        assertThat(events).containsExactly(large, "data: [DONE]\n\n");
    }

    /**
     * Every stream in flight waits for its provider in {@link SseEventBuffer#read}: 10,000 streams within the shipped
     * heap need that wait to hold no read buffer (bench/run.sh streams), and a read to take no more than the bytes that
     * came. Bytes this thread allocated to read one small event, the event itself included: well under the 1 KiB a
     * buffer kept for the wait took.
     */
    @Test
    void should_allocate_about_the_event_it_reads_not_a_read_buffer() throws Exception {
        com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        byte[] event = ("data: {\"choices\":[{\"delta\":{\"content\":\"hi\"}}]}\n\n").getBytes(StandardCharsets.UTF_8);
        assertThat(readOne(event)).hasSize(1);   // the classes loaded, the code run once
        long before = threads.getCurrentThreadAllocatedBytes();
        List<byte[]> read = readOne(event);
        long allocated = threads.getCurrentThreadAllocatedBytes() - before;

        assertThat(read).hasSize(1);
        assertThat(allocated).isBetween((long) event.length, (long) SseEventBuffer.READ_BYTES / 2);
    }

    /** A stream that cannot tell what it has ready ({@code available()} 0) is read whole all the same. */
    @Test
    void should_read_a_stream_that_tells_nothing_available() throws Exception {
        SseEventBuffer reader = new SseEventBuffer(1 << 20);
        byte[] bytes = "data: a\n\ndata: [DONE]\n\n".getBytes(StandardCharsets.UTF_8);
        InputStream in = new java.io.FilterInputStream(new ByteArrayInputStream(bytes)) {
            @Override
            public int available() {
                return 0;
            }
        };

        List<String> events = new ArrayList<>();
        for (List<byte[]> read = reader.read(in); read != null; read = reader.read(in)) {
            read.forEach(e -> events.add(new String(e, StandardCharsets.UTF_8)));
        }

        assertThat(events).containsExactly("data: a\n\n", "data: [DONE]\n\n");
    }

    @Test
    void should_return_an_event_whose_last_byte_came_alone_without_waiting_for_more() throws Exception {
        SseEventBuffer reader = new SseEventBuffer(1 << 20);
        // the provider's chunks as they came, then none for now: a read past them would wait for the next
        List<byte[]> chunks = new ArrayList<>(List.of("data: a\n".getBytes(StandardCharsets.UTF_8), new byte[] {'\n'}));
        InputStream in = new InputStream() {
            private byte[] current = new byte[0];
            private int position;

            @Override
            public int read() {
                if (position == current.length) {
                    current = chunks.remove(0);
                    position = 0;
                }
                return current[position++] & 0xff;
            }

            @Override
            public int read(byte[] into, int offset, int length) {
                assertThat(available()).as("bytes ready when read; none would wait for the provider").isPositive();
                int n = Math.min(length, available());
                System.arraycopy(current, position, into, offset, n);
                position += n;
                return n;
            }

            @Override
            public int available() {
                return current.length - position;
            }
        };

        List<String> events = new ArrayList<>();
        while (!chunks.isEmpty()) {
            reader.read(in).forEach(e -> events.add(new String(e, StandardCharsets.UTF_8)));
        }

        assertThat(events).containsExactly("data: a\n\n");
    }

    private static List<byte[]> readOne(byte[] event) throws IOException {
        return new SseEventBuffer(1 << 20).read(new ByteArrayInputStream(event));
    }
}
