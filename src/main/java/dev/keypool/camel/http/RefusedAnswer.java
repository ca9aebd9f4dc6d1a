package dev.keypool.camel.http;

import java.util.HashMap;
import java.util.Map;

import dev.keypool.gateway.AnswerTooLarge;
import io.vertx.core.Promise;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClientRequest;
import io.vertx.core.http.HttpClientResponse;
import org.apache.camel.http.base.HttpOperationFailedException;

/**
 * A status other than 2xx to a stream call: its body read whole, up to the answers' bound, into the failure
 * ({@link HttpOperationFailedException}, as vertx-http fails a plain call). Over the bound the call fails with
 * {@link AnswerTooLarge} and the rest of the answer is dropped as it comes; the provider call is reset unless its answer
 * has ended ({@link ProviderCallReset}): the chunk that crossed the bound may have been the last, and once the end has
 * reached its handler the connection goes back to the pool, where the next call may already be waiting for it.
 */
final class RefusedAnswer {

    private final HttpClientRequest request;
    private final HttpClientResponse response;
    private final String url;
    private final long maxBytes;
    private final Promise<?> answer;
    private final Buffer collected = Buffer.buffer();
    /** Changed on the event loop of the response's handlers only. */
    private boolean overBound;
    /** The answer's end reached its handler; read on the connection's event loop too. */
    private volatile boolean ended;

    private RefusedAnswer(HttpClientRequest request, HttpClientResponse response, String url, long maxBytes,
                          Promise<?> answer) {
        this.request = request;
        this.response = response;
        this.url = url;
        this.maxBytes = maxBytes;
        this.answer = answer;
    }

    /**
     * Reads the answer on the event loop its head came on, and fails {@code answer} with it.
     *
     * @param url the provider's URL, for the failure
     */
    static void read(HttpClientRequest request, HttpClientResponse response, String url, long maxBytes,
                     Promise<?> answer) {
        RefusedAnswer refused = new RefusedAnswer(request, response, url, maxBytes, answer);
        response.handler(refused::arrive)
                .exceptionHandler(answer::tryFail)
                .endHandler(v -> refused.end());
    }

    private void arrive(Buffer chunk) {
        if (overBound) {
            return;
        }
        if (collected.length() + chunk.length() > maxBytes) {
            overBound = true;
            answer.tryFail(new AnswerTooLarge("answer", maxBytes));
            ProviderCallReset.unlessEnded(request, response, () -> ended);
        } else {
            collected.appendBuffer(chunk);
        }
    }

    private void end() {
        ended = true;
        if (overBound) {
            return;
        }
        Map<String, String> headers = new HashMap<>();
        response.headers().names().forEach(name -> headers.put(name, response.getHeader(name)));
        answer.tryFail(new HttpOperationFailedException(url, response.statusCode(), response.statusMessage(), null,
                headers, collected.toString()));
    }
}
