package dev.keypool.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.Socket;
import java.time.Duration;
import java.util.Objects;

import static org.awaitility.Awaitility.await;

/**
 * Of several client sockets, the first the gateway has begun to answer. The gateway reads its connections on an event
 * loop per core, so of two requests sent one after the other either may be read first: a test of a budget that fits
 * one of them asks which was answered, not which was sent first.
 */
public final class FirstAnswered {

    private FirstAnswered() {
    }

    public static Socket of(Duration atMost, Socket... sockets) {
        return await().atMost(atMost).pollInterval(Duration.ofMillis(10)).until(() -> {
            for (Socket socket : sockets) {
                if (available(socket) > 0) {
                    return socket;
                }
            }
            return null;
        }, Objects::nonNull);
    }

    private static int available(Socket socket) {
        try {
            return socket.getInputStream().available();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
