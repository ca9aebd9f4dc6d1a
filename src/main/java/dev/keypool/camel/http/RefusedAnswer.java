package dev.keypool.camel.http;

import java.util.HashMap;
import java.util.Map;

import dev.keypool.gateway.AnswerTooLarge;
import io.vertx.core.Promise;
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

    private RefusedAnswer() {
    }

    /**
     * Reads the answer on the event loop its head came on ({@link WholeAnswer}), and fails {@code answer} with it.
     *
     * @param url the provider's URL, for the failure
     */
    static void read(HttpClientRequest request, HttpClientResponse response, String url, long maxBytes,
                     Promise<?> answer) {
        WholeAnswer.read(request, response, maxBytes).onComplete(body -> {
            if (body.failed()) {
                answer.tryFail(body.cause());
                return;
            }
            Map<String, String> headers = new HashMap<>();
            response.headers().names().forEach(name -> headers.put(name, response.getHeader(name)));
            answer.tryFail(new HttpOperationFailedException(url, response.statusCode(), response.statusMessage(), null,
                    headers, body.result().toString()));
        });
    }
}
