package dev.keypool.camel.pipeline;

import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import io.vertx.core.Context;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpServerResponse;

/**
 * A stream to an HTTP client: the Vert.x response, written event by event, chunked, from the event loop (the first
 * events) or the relay's thread. A client that reads nothing for {@value #DRAIN_WAIT_SECONDS} s while the write queue
 * is full is treated as gone.
 */
final class HttpStreamClient implements StreamClient {

    private static final long DRAIN_WAIT_SECONDS = 30;

    private final HttpServerResponse response;
    private volatile boolean gone;
    private volatile Runnable onGone = () -> { };

    HttpStreamClient(HttpServerResponse response) {
        this.response = response;
    }

    @Override
    public void onGone(Runnable gone) {
        this.onGone = gone;
        response.closeHandler(v -> {
            this.gone = true;
            gone.run();
        });
    }

    @Override
    public void open(Map<String, String> headers) {
        response.setStatusCode(200)
                .setChunked(true)
                .putHeader("Content-Type", "text/event-stream")
                .putHeader("Cache-Control", "no-cache");
        headers.forEach(response::putHeader);
    }

    @Override
    public boolean write(byte[] event) throws InterruptedException {
        if (gone) {
            return false;
        }
        // on the event loop (a stream's first events) nothing may wait: what goes past the queue's limit there is the
        // events of one provider chunk at most, and the relay's thread waits for the rest
        if (response.writeQueueFull() && !Context.isOnEventLoopThread()) {
            CountDownLatch drained = new CountDownLatch(1);
            response.drainHandler(v -> drained.countDown());
            if (response.writeQueueFull() && !drained.await(DRAIN_WAIT_SECONDS, TimeUnit.SECONDS)) {
                gone = true;
                onGone.run();
                return false;
            }
        }
        response.write(Buffer.buffer(event));
        return true;
    }

    @Override
    public void end() {
        // also marks a response whose client is gone as ended, so that platform-http does not try to answer it
        try {
            response.end();
        } catch (RuntimeException alreadyClosed) {
            // nothing to tell a client that is gone
        }
    }
}
