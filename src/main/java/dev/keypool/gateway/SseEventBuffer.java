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

    /** Adds bytes and returns the events they complete, in order. */
    public List<byte[]> feed(byte[] bytes, int offset, int length) {
        List<byte[]> events = new ArrayList<>();
        for (int i = offset; i < offset + length; i++) {
            byte b = bytes[i];
            pending.write(b);
            if (b == '\n' && endsWithBlankLine()) {
                events.add(pending.toByteArray());
                pending.reset();
            }
        }
        return events;
    }

    /** Bytes of an event not yet terminated by a blank line. */
    public byte[] remainder() {
        return pending.toByteArray();
    }

    private boolean endsWithBlankLine() {
        byte[] buf = pending.toByteArray();
        int n = buf.length;
        // "\n\n" or "\r\n\r\n" (a lone "\r\r" is legal SSE too but not sent by OpenAI-compatible servers)
        return (n >= 2 && buf[n - 2] == '\n') || (n >= 4 && buf[n - 2] == '\r' && buf[n - 3] == '\n' && buf[n - 4] == '\r');
    }
}
