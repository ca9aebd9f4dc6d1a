package dev.keypool.camel.http;

import java.util.ArrayList;
import java.util.List;

import dev.keypool.gateway.AnswerTooLarge;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClientRequest;
import io.vertx.core.http.HttpClientResponse;

/**
 * A provider's answer read whole, up to the answers' bound, on the event loop its head came on. Over the bound the read
 * fails with {@link AnswerTooLarge} and the rest of the answer is dropped as it comes; the provider call is reset unless
 * its answer has ended ({@link ProviderCallReset}): the chunk that crossed the bound may have been the last, and once
 * the end has reached its handler the connection goes back to the pool, where the next call may already be waiting for
 * it. The chunks are kept as they came and joined once at the end: a large answer is not copied into an ever larger
 * buffer on the way.
 */
final class WholeAnswer {

    private final HttpClientRequest request;
    private final HttpClientResponse response;
    private final long maxBytes;
    private final Promise<Buffer> body = Promise.promise();
    private final List<Buffer> chunks = new ArrayList<>(1);
    private long size;
    /** Changed on the event loop of the response's handlers only. */
    private boolean overBound;
    /** The answer's end reached its handler; read on the connection's event loop too. */
    private volatile boolean ended;

    private WholeAnswer(HttpClientRequest request, HttpClientResponse response, long maxBytes) {
        this.request = request;
        this.response = response;
        this.maxBytes = maxBytes;
    }

    /** The answer's body, once its end has come; failed over the bound, or as the response fails. */
    static Future<Buffer> read(HttpClientRequest request, HttpClientResponse response, long maxBytes) {
        WholeAnswer answer = new WholeAnswer(request, response, maxBytes);
        response.handler(answer::arrive)
                .exceptionHandler(answer.body::tryFail)
                .endHandler(v -> answer.end());
        return answer.body.future();
    }

    private void arrive(Buffer chunk) {
        if (overBound) {
            return;
        }
        if (size + chunk.length() > maxBytes) {
            overBound = true;
            chunks.clear();
            body.tryFail(new AnswerTooLarge("answer", maxBytes));
            ProviderCallReset.unlessEnded(request, response, () -> ended);
        } else {
            chunks.add(chunk);
            size += chunk.length();
        }
    }

    private void end() {
        ended = true;
        if (overBound) {
            return;
        }
        if (chunks.size() == 1) {
            body.tryComplete(chunks.get(0));
            return;
        }
        Buffer joined = Buffer.buffer((int) size);
        chunks.forEach(joined::appendBuffer);
        chunks.clear();
        body.tryComplete(joined);
    }
}
