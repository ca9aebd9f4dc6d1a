package dev.keypool.camel.http;

import java.util.function.BooleanSupplier;

import io.vertx.core.http.HttpClientRequest;
import io.vertx.core.http.HttpClientResponse;
import io.vertx.core.http.HttpVersion;
import io.vertx.core.http.impl.HttpClientConnection;

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
 */
final class ProviderCallReset {

    private ProviderCallReset() {
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
