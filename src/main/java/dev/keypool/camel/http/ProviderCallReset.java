package dev.keypool.camel.http;

import java.util.function.BooleanSupplier;

import dev.keypool.gateway.AnswerTooLarge;
import io.vertx.core.Future;
import io.vertx.core.http.HttpClientRequest;
import io.vertx.core.http.HttpClientResponse;
import io.vertx.core.http.HttpVersion;
import io.vertx.core.http.impl.HttpClientConnection;
import io.vertx.ext.web.client.impl.ClientPhase;
import io.vertx.ext.web.client.impl.HttpContext;

/**
 * The reset of a provider call whose answer is still coming, and of nothing else.
 *
 * <p>Over HTTP/1.1 Vert.x (4.5, {@code Http1xClientConnection.reset}) resets a call by closing its connection, and
 * does so as well once the connection has read the call's whole answer: by then the connection may be back in the
 * pool and carrying the next call, which fails with it. The connection reads the answer on its own event loop and
 * hands each chunk, then the end, to the event loop of the call's handlers, which may be another one; there the end
 * reaches the response's end handler (unless the response is paused), and only after that does the connection go back
 * to the pool. So whether the answer ended is asked on the connection's event loop, where nothing is read meanwhile:
 * a connection with a call in progress ({@code activeStreams()}, looked at first) whose end the handlers have not
 * seen ({@code endHandled}) still carries this call, since any later call on it would have needed the connection back
 * in the pool, hence the end handled; the reset then closes it on the spot. A connection without a call in progress
 * has read the whole answer: it is left to the pool.
 *
 * <p>Over HTTP/2 a reset ends the call's stream alone, never the connection.
 *
 * <p>Every reset of an answer the gateway stops reading goes through here: a stream the relay closed
 * ({@link UpstreamStream}), a plain answer or a refused stream's answer over the answers' bound ({@link WholeAnswer},
 * which {@link RefusedAnswer} reads with) and an upload's answer over it, read by WebClient
 * ({@link #afterAnswerTooLarge}). In each the decision comes after the answer's last byte may have been read.
 */
final class ProviderCallReset {

    private static final String ANSWER_END = ProviderCallReset.class.getName() + ".answerEnd";

    private ProviderCallReset() {
    }

    /**
     * WebClient interceptor: an upload's call that failed over the answers' bound ({@code BoundedAnswers}) has its
     * provider call reset unless its answer has ended. WebClient resets the request of a failed call only while it is
     * being sent; once the answer is coming, the pipe that fed the codec would read the rest of an endless answer and
     * drop it (measured: every byte of a 200 MiB answer read). The failure reaches the interceptors a task after the
     * codec refused the chunk that crossed the bound, and that chunk may have been the answer's last: by then its end
     * may have reached the response and the connection gone back to the pool. So the answer's end is watched from its
     * head on ({@code end()}: complete once the end reached the response). The response is not paused meanwhile: the
     * codec never asks the pipe to wait, and a pipe whose write failed resumes its source.
     */
    static void afterAnswerTooLarge(HttpContext<?> context) {
        if (context.phase() == ClientPhase.RECEIVE_RESPONSE && context.clientResponse() != null) {
            context.set(ANSWER_END, context.clientResponse().end());
        } else if (context.phase() == ClientPhase.FAILURE && context.failure() instanceof AnswerTooLarge
                && context.clientResponse() != null) {
            Future<Void> end = context.get(ANSWER_END);
            HttpClientResponse response = context.clientResponse();
            unlessEnded(response.request(), response, () -> end != null && end.isComplete());
        }
        context.next();
    }

    /**
     * Resets the call unless its answer has ended.
     *
     * @param endHandled whether the response's end reached its handler (read on another event loop); the response must
     *                   not be paused, or an end Vert.x holds back would let the connection go back to the pool unseen
     */
    static void unlessEnded(HttpClientRequest request, HttpClientResponse response, BooleanSupplier endHandled) {
        if (response.version() == HttpVersion.HTTP_2) {
            if (!endHandled.getAsBoolean()) {
                request.reset();
            }
            return;
        }
        // Vert.x's own connection type, not its API: the only way to reach the connection's event loop and state
        HttpClientConnection connection = (HttpClientConnection) request.connection();
        connection.getContext().runOnContext(v -> {
            if (connection.activeStreams() > 0 && !endHandled.getAsBoolean()) {
                // on the connection's event loop: Vert.x closes the connection now, before it reads any further
                request.reset();
            }
        });
    }
}
