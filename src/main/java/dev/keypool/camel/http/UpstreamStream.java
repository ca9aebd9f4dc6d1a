package dev.keypool.camel.http;

import java.io.IOException;
import java.io.InputStream;
import java.io.InterruptedIOException;
import java.net.SocketTimeoutException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import io.vertx.core.Context;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClientRequest;
import io.vertx.core.http.HttpClientResponse;

/**
 * The body of a provider's stream as {@code StreamRelay} reads it: the bytes of a Vert.x response as they arrive, on
 * the request's thread, so that the relay keeps its one way of reading whatever carries the stream (HTTP/1.1 or one
 * stream of an HTTP/2 connection).
 *
 * <p>What arrives is queued; past {@value #PAUSE_AT} bytes not yet read the response is paused (HTTP/2 flow control
 * then holds the provider back on this stream alone), and resumed below {@value #RESUME_AT}. A read waits at most
 * {@code idleTimeoutMs} for the next bytes, as a socket's read timeout did (a provider that goes silent mid-stream).
 * An interrupted read (its client hung up), a read that waited too long and {@link #close()} end the stream: a reader
 * waiting wakes, what arrives later is dropped, and the provider's call is reset if its answer is still coming
 * ({@link ProviderCallReset}: over HTTP/2 that call alone, over HTTP/1.1 its connection, never one that already went
 * back to the pool).
 *
 * <p>What has come can be read without waiting ({@link #available()}): the relay writes a stream's first event on the
 * event loop the bytes came on, and is answered only once its first bytes are here ({@link #whenMoreArrives}).
 */
final class UpstreamStream extends InputStream implements ArrivingBytes {

    static final int PAUSE_AT = 64 * 1024;
    static final int RESUME_AT = 16 * 1024;
    private static final Object END = new Object();

    private final HttpClientRequest request;
    private final HttpClientResponse response;
    private final Context eventLoop;
    private final long idleTimeoutMs;
    private final LinkedBlockingQueue<Object> arrived = new LinkedBlockingQueue<>();
    private final AtomicLong queuedBytes = new AtomicLong();
    /**
     * Changed on the event loop only; read by the reader too, so that it asks the event loop to resume only a paused
     * response (a task for every read would wake the loop once per event of every stream).
     */
    private volatile boolean paused;
    private Buffer current;
    private int position;
    private boolean ended;
    /** The provider's last byte reached the end handler (set on the event loop): the call is complete. */
    private volatile boolean complete;
    /** Set by the reader's side: what arrives from then on is dropped. */
    private volatile boolean closed;
    /** Run on the event loop once bytes, the end or a failure have come that no read took; then null. */
    private Runnable arrival;

    /** Takes the response's body from now on; made on the event loop that received the response's head. */
    UpstreamStream(HttpClientRequest request, HttpClientResponse response, long idleTimeoutMs) {
        this.request = request;
        this.response = response;
        this.eventLoop = Vertx.currentContext();
        this.idleTimeoutMs = idleTimeoutMs;
        response.handler(this::arrive)
                .endHandler(v -> {
                    complete = true;
                    queue(END);
                })
                .exceptionHandler(this::queue);
    }

    @Override
    public boolean whenMoreArrives(Runnable cameMore) {
        if (ended) {
            return false;
        }
        if (arrived.isEmpty()) {
            arrival = cameMore;
        } else {
            cameMore.run();
        }
        return true;
    }

    private void queue(Object next) {
        arrived.add(next);
        cameMore();
    }

    private void cameMore() {
        Runnable waiting = arrival;
        if (waiting != null) {
            arrival = null;
            waiting.run();
        }
    }

    private void arrive(Buffer chunk) {
        if (closed) {
            return;
        }
        queue(chunk);
        if (queuedBytes.addAndGet(chunk.length()) > PAUSE_AT && !paused) {
            paused = true;
            response.pause();
            // a reader that took the queue below RESUME_AT before it could see paused asked for no resume
            if (queuedBytes.get() < RESUME_AT) {
                paused = false;
                response.resume();
            }
        }
    }

    @Override
    public int read() throws IOException {
        if (!waitForBytes()) {
            return -1;
        }
        int b = current.getByte(position) & 0xff;
        consumed(1);
        return b;
    }

    /**
     * The bytes a read takes without waiting: those of the chunk at hand, or else of the next one that has come. What
     * has come after it is left queued, so that a chunk is held only while it is read; the end or a failure that has
     * come is taken too (then 0, and the next read ends or fails at once).
     */
    @Override
    public int available() throws IOException {
        while (current == null && !ended) {
            Object next = arrived.poll();
            if (next == null) {
                break;
            }
            take(next);
        }
        return current == null ? 0 : current.length() - position;
    }

    @Override
    public int read(byte[] into, int offset, int length) throws IOException {
        if (length == 0) {
            return 0;
        }
        if (!waitForBytes()) {
            return -1;
        }
        int n = Math.min(length, current.length() - position);
        current.getBytes(position, position + n, into, offset);
        consumed(n);
        return n;
    }

    /** A chunk with bytes left to read at hand, waiting for the next one if need be; false at the stream's end. */
    private boolean waitForBytes() throws IOException {
        while (current == null) {
            if (ended) {
                return false;
            }
            next();
        }
        return true;
    }

    private void consumed(int n) {
        position += n;
        if (position == current.length()) {
            // a chunk read whole is let go at once, not held through the wait for the next
            current = null;
        }
        // either this read sees paused, or the event loop, which reads queuedBytes after it sets paused, sees this read
        if (queuedBytes.addAndGet(-n) < RESUME_AT && paused) {
            eventLoop.runOnContext(v -> {
                if (paused && queuedBytes.get() < RESUME_AT) {
                    paused = false;
                    response.resume();
                }
            });
        }
    }

    private void next() throws IOException {
        Object next;
        try {
            next = arrived.poll(idleTimeoutMs, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            close();
            Thread.currentThread().interrupt();
            throw new InterruptedIOException("interrupted while waiting for the provider's stream");
        }
        if (next == null) {
            close();
            throw new SocketTimeoutException("no byte of the provider's stream for " + idleTimeoutMs + " ms");
        }
        take(next);
    }

    /** What came next, taken by the reader: a chunk becomes the one at hand; the end or a failure ends the stream. */
    private void take(Object next) throws IOException {
        if (next == END) {
            ended = true;
            current = null;
        } else if (next instanceof Buffer chunk) {
            if (chunk.length() > 0) {
                current = chunk;
                position = 0;
            }
        } else {
            Throwable failure = (Throwable) next;
            ended = true;
            throw failure instanceof IOException io ? io : new IOException(failure.toString(), failure);
        }
    }

    /**
     * Ends the stream: a read waiting (or the next one) fails, and the provider's call is reset if its answer is still
     * coming. Whether it is, the end handler says only once the response is no longer paused: Vert.x holds the end
     * back with the chunks of a paused response, while its HTTP/1.1 connection, having read the whole answer, goes
     * back to the pool and may be carrying the next call already. So the response is resumed first, on its event
     * loop, and the decision taken in the task after the drain that resume schedules there (Vert.x's
     * {@code InboundBuffer.fetch}), when any end Vert.x held back has reached the end handler.
     */
    @Override
    public void close() {
        if (!closed) {
            closed = true;
            arrived.clear();
            arrived.add(new IOException("stream closed by the gateway"));
            if (complete) {
                return;
            }
            eventLoop.runOnContext(v -> {
                // a reader waiting on the event loop hears of the end
                cameMore();
                paused = false;
                response.resume();
                eventLoop.runOnContext(drained -> {
                    if (!complete) {
                        ProviderCallReset.unlessEnded(request, response, () -> complete);
                    }
                });
            });
        }
    }
}
