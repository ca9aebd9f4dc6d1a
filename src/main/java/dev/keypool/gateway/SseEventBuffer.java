package dev.keypool.gateway;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.List;

/**
 * Cuts a Server-Sent Events byte stream into whole events (each with its terminating blank line), however the
 * bytes arrive: the gateway forwards whole events only, so that it can read usage and [DONE] and never sends a
 * client half an event before a failure.
 */
public final class SseEventBuffer {

    /**
     * The most {@link #read} takes from the stream at a time: a provider's event is a few hundred bytes; a larger one
     * takes a few reads.
     */
    public static final int READ_BYTES = 1024;

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

    /**
     * Reads what {@code in} has next (blocking until some bytes come) and returns the events they complete, in order,
     * possibly none; null at the end of the stream.
     */
    public List<byte[]> read(InputStream in) throws IOException {
        // the wait for the provider's next bytes holds no buffer: a stream in flight spends nearly all its time here, and
        // a buffer kept for it was 1 KiB of heap per stream (bench/run.sh streams, HOLD_STREAMS); the bytes that came
        // with the first are then taken into one made to their size
        int first = in.read();
        if (first < 0) {
            return null;
        }
        int ready = in.available();
        byte[] chunk = new byte[1 + Math.min(Math.max(ready, 0), READ_BYTES - 1)];
        chunk[0] = (byte) first;
        // only what is ready: a read past it would wait for the provider's next bytes while this one may end an event
        // (its last byte alone in a chunk); a stream that cannot tell (available() 0) goes a byte a read
        int more = chunk.length > 1 ? in.read(chunk, 1, chunk.length - 1) : 0;
        return feed(chunk, 0, 1 + Math.max(more, 0));
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
