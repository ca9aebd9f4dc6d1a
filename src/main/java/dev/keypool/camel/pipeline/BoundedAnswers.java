package dev.keypool.camel.pipeline;

import java.util.ArrayList;
import java.util.List;

import dev.keypool.gateway.AnswerTooLarge;
import io.vertx.core.AsyncResult;
import io.vertx.core.Future;
import io.vertx.core.Handler;
import io.vertx.core.Promise;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.streams.WriteStream;
import io.vertx.ext.web.client.HttpRequest;
import io.vertx.ext.web.client.impl.ClientPhase;
import io.vertx.ext.web.client.impl.HttpContext;
import io.vertx.ext.web.codec.BodyCodec;
import io.vertx.ext.web.codec.spi.BodyStream;
import org.apache.camel.Exchange;
import org.apache.camel.component.vertx.http.DefaultVertxHttpBinding;
import org.apache.camel.component.vertx.http.VertxHttpEndpoint;

/**
 * vertx-http's binding with a bound on the provider's answer: Vert.x's WebClient collects a body whole, whatever its
 * size, so a provider answering without end would fill the heap. Past {@code maxBytes} the call fails with
 * {@link AnswerTooLarge} (a provider error: another key, the breaker, the fallback walk) and its connection is closed
 * ({@link #closeOnOverflow}) instead of read to the end. Vert.x has no such limit of its own (its HttpClientOptions
 * bound headers and chunks, not a body), hence this codec.
 */
public final class BoundedAnswers extends DefaultVertxHttpBinding {

    private final BodyCodec<Buffer> codec;

    public BoundedAnswers(long maxBytes) {
        this.codec = handler -> handler.handle(Future.succeededFuture(new Body(maxBytes)));
    }

    /**
     * WebClient interceptor: a call that failed over the limit has its provider connection closed. WebClient resets
     * the request of a failed call only while it is being sent; once the response is coming, the pipe that fed the
     * codec would read the rest of an endless answer and drop it (measured: every byte of a 200 MiB answer read).
     */
    public static void closeOnOverflow(HttpContext<?> context) {
        if (context.phase() == ClientPhase.FAILURE && context.failure() instanceof AnswerTooLarge
                && context.clientResponse() != null) {
            // HTTP/1.x: the reset of a request whose answer is in flight closes its connection
            context.clientResponse().request().reset();
        }
        context.next();
    }

    @Override
    public HttpRequest<Buffer> prepareHttpRequest(VertxHttpEndpoint endpoint, Exchange exchange) throws Exception {
        return bounded(super.prepareHttpRequest(endpoint, exchange));
    }

    /** The request, its answer read within the bound. */
    public HttpRequest<Buffer> bounded(HttpRequest<Buffer> request) {
        return request.as(codec);
    }

    /**
     * One answer's body as it arrives, on the event loop of its connection: its chunks are kept as they came and
     * joined once at the end, not copied into an ever larger buffer on the way (a 64 MiB answer took seconds of
     * copying and full collections that way).
     */
    private static final class Body implements BodyStream<Buffer> {
        private final long maxBytes;
        private final List<Buffer> chunks = new ArrayList<>();
        private long size;
        private final Promise<Buffer> result = Promise.promise();

        Body(long maxBytes) {
            this.maxBytes = maxBytes;
        }

        @Override
        public Future<Buffer> result() {
            return result.future();
        }

        @Override
        public void handle(Throwable failure) {
            result.tryFail(failure);
        }

        @Override
        public Future<Void> write(Buffer data) {
            if (size + data.length() > maxBytes) {
                chunks.clear();
                AnswerTooLarge tooLarge = new AnswerTooLarge("answer", maxBytes);
                result.tryFail(tooLarge);
                return Future.failedFuture(tooLarge);
            }
            chunks.add(data);
            size += data.length();
            return Future.succeededFuture();
        }

        @Override
        public void write(Buffer data, Handler<AsyncResult<Void>> handler) {
            Future<Void> written = write(data);
            if (handler != null) {
                handler.handle(written);
            }
        }

        @Override
        public void end(Handler<AsyncResult<Void>> handler) {
            Buffer body = Buffer.buffer((int) size);
            chunks.forEach(body::appendBuffer);
            chunks.clear();
            result.tryComplete(body);
            if (handler != null) {
                handler.handle(Future.succeededFuture());
            }
        }

        @Override
        public WriteStream<Buffer> exceptionHandler(Handler<Throwable> handler) {
            return this;
        }

        @Override
        public WriteStream<Buffer> setWriteQueueMaxSize(int maxSize) {
            return this;
        }

        @Override
        public boolean writeQueueFull() {
            return false;
        }

        @Override
        public WriteStream<Buffer> drainHandler(Handler<Void> handler) {
            return this;
        }
    }
}
