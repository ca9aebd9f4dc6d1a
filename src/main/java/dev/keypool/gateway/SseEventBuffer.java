package dev.keypool.gateway;

import java.io.ByteArrayOutputStream;
import java.util.ArrayList;
import java.util.List;

/**
 * Cuts a Server-Sent Events byte stream into whole events (each with its terminating blank line), however the
 * bytes arrive: the gateway forwards whole events only, so that it can read usage and [DONE] and never sends a
 * client half an event before a failure.
 */
public final class SseEventBuffer {

    private final ByteArrayOutputStream pending = new ByteArrayOutputStream();
    private final int maxEventBytes;
    private byte previous;
    private byte beforePrevious;

    /** Events of any size. */
    public SseEventBuffer() {
        this(Integer.MAX_VALUE);
    }

    /** @param maxEventBytes the largest event it holds: a provider that never ends an event cannot fill the heap */
    public SseEventBuffer(int maxEventBytes) {
        this.maxEventBytes = maxEventBytes;
    }

    /** Adds bytes and returns the events they complete, in order; {@link AnswerTooLarge} once an event is over the limit. */
    public List<byte[]> feed(byte[] bytes, int offset, int length) throws AnswerTooLarge {
        List<byte[]> events = new ArrayList<>();
        for (int i = offset; i < offset + length; i++) {
            byte b = bytes[i];
            if (pending.size() == maxEventBytes) {
                throw new AnswerTooLarge("stream event", maxEventBytes);
            }
            pending.write(b);
            // a blank line ends the event: "\n\n", or "\r\n\r\n" (a lone "\r\r" is legal SSE too but is not
            // sent by OpenAI-compatible servers)
            boolean blankLine = b == '\n' && (previous == '\n' || (previous == '\r' && beforePrevious == '\n'));
            beforePrevious = previous;
            previous = b;
            if (blankLine) {
                events.add(pending.toByteArray());
                pending.reset();
                previous = 0;
                beforePrevious = 0;
            }
        }
        return events;
    }
}
