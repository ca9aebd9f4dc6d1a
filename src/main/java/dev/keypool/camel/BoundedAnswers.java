package dev.keypool.camel;

import dev.keypool.gateway.AnswerTooLarge;
import io.vertx.core.AsyncResult;
import io.vertx.core.Future;
import io.vertx.core.Handler;
import io.vertx.core.Promise;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.streams.WriteStream;
import io.vertx.ext.web.client.HttpRequest;
import io.vertx.ext.web.codec.BodyCodec;
import io.vertx.ext.web.codec.spi.BodyStream;
import org.apache.camel.Exchange;
import org.apache.camel.component.vertx.http.DefaultVertxHttpBinding;
import org.apache.camel.component.vertx.http.VertxHttpEndpoint;

/**
 * vertx-http's binding with a bound on the provider's answer: Vert.x's WebClient collects a body whole, whatever its
 * size, so a provider answering without end would fill the heap. Past {@code maxBytes} the call fails with
 * {@link AnswerTooLarge} (a provider error: another key, the breaker, the fallback walk) and WebClient resets the
 * request, which closes its connection instead of reading the rest. Vert.x has no such limit of its own (its
 * HttpClientOptions bound headers and chunks, not a body), hence this codec.
 */
final class BoundedAnswers extends DefaultVertxHttpBinding {

    private final BodyCodec<Buffer> codec;

    BoundedAnswers(long maxBytes) {
        this.codec = handler -> handler.handle(Future.succeededFuture(new Body(maxBytes)));
    }

    @Override
    public HttpRequest<Buffer> prepareHttpRequest(VertxHttpEndpoint endpoint, Exchange exchange) throws Exception {
        return super.prepareHttpRequest(endpoint, exchange).as(codec);
    }

    /** One answer's body as it arrives, on the event loop of its connection. */
    private static final class Body implements BodyStream<Buffer> {
        private final long maxBytes;
        private final Buffer body = Buffer.buffer();
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
            if ((long) body.length() + data.length() > maxBytes) {
                AnswerTooLarge tooLarge = new AnswerTooLarge("answer", maxBytes);
                result.tryFail(tooLarge);
                return Future.failedFuture(tooLarge);
            }
            body.appendBuffer(data);
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
