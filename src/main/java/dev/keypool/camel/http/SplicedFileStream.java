package dev.keypool.camel.http;

import java.util.concurrent.atomic.AtomicBoolean;

import dev.keypool.gateway.SplicedFile;
import io.vertx.core.Handler;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.file.AsyncFile;
import io.vertx.core.file.OpenOptions;
import io.vertx.core.streams.ReadStream;

/**
 * A {@link SplicedFile} as Vert.x sends it: the file read in chunks by an {@link AsyncFile}, which keeps the flow
 * control (a chunk is read only when the provider's connection takes more), with the replaced range cut out of the
 * chunks it falls into. Vert.x has no stream that splices one, and the replacement touches at most a few chunks, so
 * the rest pass through unchanged. One stream per attempt: a retry opens the file anew and sends it from the start.
 */
final class SplicedFileStream implements ReadStream<Buffer> {

    private final AsyncFile file;
    private final SplicedFile body;
    private final AtomicBoolean closed = new AtomicBoolean();
    /** The file offset of the next chunk; chunks arrive one at a time, in order. */
    private long offset;

    private SplicedFileStream(AsyncFile file, SplicedFile body) {
        this.file = file;
        this.body = body;
    }

    /** Opens the file (a quick blocking call, on the request thread that starts the attempt). */
    static SplicedFileStream open(Vertx vertx, SplicedFile body) {
        return new SplicedFileStream(vertx.fileSystem().openBlocking(body.file().toString(), new OpenOptions().setRead(true)),
                body);
    }

    /** Closes the file; again (the attempt's answer, after the stream's end) does nothing. */
    void close() {
        if (closed.compareAndSet(false, true)) {
            file.close();
        }
    }

    @Override
    public ReadStream<Buffer> handler(Handler<Buffer> handler) {
        if (handler == null || !body.spliced()) {
            file.handler(handler);
        } else {
            file.handler(chunk -> splice(chunk, handler));
        }
        return this;
    }

    private void splice(Buffer chunk, Handler<Buffer> handler) {
        int length = chunk.length();
        SplicedFile.Cut cut = body.cut(offset, length);
        offset += length;
        if (cut.unchanged()) {
            handler.handle(chunk);
            return;
        }
        Buffer out = Buffer.buffer(length - (cut.tailStart() - cut.headEnd()) + (cut.insert() ? body.replacement().length : 0));
        out.appendBuffer(chunk, 0, cut.headEnd());
        if (cut.insert()) {
            out.appendBytes(body.replacement());
        }
        out.appendBuffer(chunk, cut.tailStart(), length - cut.tailStart());
        if (out.length() > 0) {
            handler.handle(out);
        }
    }

    @Override
    public ReadStream<Buffer> exceptionHandler(Handler<Throwable> handler) {
        file.exceptionHandler(handler);
        return this;
    }

    @Override
    public ReadStream<Buffer> endHandler(Handler<Void> handler) {
        file.endHandler(handler == null ? null : end -> {
            close();
            handler.handle(end);
        });
        return this;
    }

    @Override
    public ReadStream<Buffer> pause() {
        file.pause();
        return this;
    }

    @Override
    public ReadStream<Buffer> resume() {
        file.resume();
        return this;
    }

    @Override
    public ReadStream<Buffer> fetch(long amount) {
        file.fetch(amount);
        return this;
    }
}
