package dev.keypool.camel.pipeline;

import java.util.ArrayList;
import java.util.List;

import dev.keypool.gateway.AnswerTooLarge;
import io.vertx.core.AsyncResult;
import io.vertx.core.Future;
import io.vertx.core.Handler;
import io.vertx.core.Promise;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.streams.WriteStream;
import io.vertx.ext.web.client.HttpRequest;
import io.vertx.ext.web.client.HttpResponse;
import io.vertx.ext.web.codec.BodyCodec;
import io.vertx.ext.web.codec.spi.BodyStream;
import org.apache.camel.Exchange;
import org.apache.camel.ExchangePropertyKey;
import org.apache.camel.Message;
import org.apache.camel.component.vertx.http.DefaultVertxHttpBinding;
import org.apache.camel.component.vertx.http.VertxHttpEndpoint;
import org.apache.camel.spi.HeaderFilterStrategy;
import org.apache.camel.util.IOHelper;

/**
 * vertx-http's binding with a bound on the provider's answer: Vert.x's WebClient collects a body whole, whatever its
 * size, so a provider answering without end would fill the heap. Past {@code maxBytes} the call fails with
 * {@link AnswerTooLarge} (a provider error: another key, the breaker, the fallback walk) and its connection is closed
 * instead of read to the end, unless the answer ended meanwhile (an interceptor of the provider clients,
 * {@code ProviderCallReset} in dev.keypool.camel.http). Vert.x has no such limit of its own (its HttpClientOptions
 * bound headers and chunks, not a body), hence this codec.
 */
public final class BoundedAnswers extends DefaultVertxHttpBinding {

    private final BodyCodec<Buffer> codec;

    public BoundedAnswers(long maxBytes) {
        this.codec = handler -> handler.handle(Future.succeededFuture(new Body(maxBytes)));
    }

    @Override
    public HttpRequest<Buffer> prepareHttpRequest(VertxHttpEndpoint endpoint, Exchange exchange) throws Exception {
        return bounded(super.prepareHttpRequest(endpoint, exchange));
    }

    /**
     * The provider's status and Content-Type, not its other headers: nothing after the call reads them (the client's
     * answer is made anew, {@link Exchanges#answer}), and vertx-http's own copy of them sets the message's headers
     * aside, clears them and puts them back around the provider's: 1.2 KB of a plain request's ~32 KB at 64 connections
     * (bench/README.md, "What a request allocates").
     */
    @Override
    public void populateResponseHeaders(Exchange exchange, HttpResponse<Buffer> response, HeaderFilterStrategy strategy) {
        Message message = exchange.getMessage();
        message.setHeader(Exchange.HTTP_RESPONSE_CODE, response.statusCode());
        message.setHeader(Exchange.HTTP_RESPONSE_TEXT, response.statusMessage());
        String contentType = response.getHeader(HttpHeaders.CONTENT_TYPE);
        if (contentType != null) {
            exchange.setProperty(ExchangePropertyKey.CHARSET_NAME, IOHelper.getCharsetNameFromContentType(contentType));
            message.setHeader(Exchange.CONTENT_TYPE, contentType);
        }
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
