package dev.keypool.testing;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

/**
 * A server on a loopback port that relays each connection to another one, or, while down, closes it at once: a server
 * that went away and comes back, which a client reaches on the same port throughout, and whose every connection attempt
 * the test sees ({@link #refusedAt()}). A server just back can take a while to answer a new connection (a database
 * replaying its log on a loaded machine): {@link #up(long)} holds each new connection that long before relaying it.
 */
public final class LoopbackRelay implements AutoCloseable {

    private final ServerSocket server;
    private final int target;
    private final List<Socket> open = new CopyOnWriteArrayList<>();
    private final List<Long> refused = new CopyOnWriteArrayList<>();
    private volatile boolean up = true;
    private volatile long answerAfterMs;

    private LoopbackRelay(ServerSocket server, int target) {
        this.server = server;
        this.target = target;
    }

    /** Relays to {@code target} on loopback, up. */
    public static LoopbackRelay to(int target) {
        try {
            LoopbackRelay relay = new LoopbackRelay(new ServerSocket(0, 50, InetAddress.getLoopbackAddress()), target);
            daemon("relay-accept", relay::accept);
            return relay;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    public int port() {
        return server.getLocalPort();
    }

    /** Down: the connections relayed so far are cut, and every new one is closed as soon as it comes. */
    public void down() {
        up = false;
        for (Socket socket : open) {
            close(socket);
        }
    }

    /** Up again, each new connection relayed {@code answerAfterMs} after it came. */
    public void up(long answerAfterMs) {
        this.answerAfterMs = answerAfterMs;
        up = true;
    }

    /** When each connection closed while down came, {@link System#nanoTime()}, in order. */
    public List<Long> refusedAt() {
        return List.copyOf(refused);
    }

    private void accept() {
        while (!server.isClosed()) {
            try {
                Socket client = server.accept();
                if (!up) {
                    refused.add(System.nanoTime());
                    close(client);
                    continue;
                }
                long delayMs = answerAfterMs;
                daemon("relay-open", () -> relay(client, delayMs));
            } catch (IOException e) {
                // closed
            }
        }
    }

    private void relay(Socket client, long delayMs) {
        try {
            TimeUnit.MILLISECONDS.sleep(delayMs);
            Socket upstream = new Socket(InetAddress.getLoopbackAddress(), target);
            open.add(client);
            open.add(upstream);
            daemon("relay-in", () -> pump(client, upstream));
            pump(upstream, client);
        } catch (IOException e) {
            close(client);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private void pump(Socket from, Socket to) {
        try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
            in.transferTo(out);
        } catch (IOException e) {
            // one side closed: the other goes too
        } finally {
            close(from);
            close(to);
            open.remove(from);
            open.remove(to);
        }
    }

    private static void daemon(String name, Runnable work) {
        Thread thread = new Thread(work, name);
        thread.setDaemon(true);
        thread.start();
    }

    private static void close(Socket socket) {
        try {
            socket.close();
        } catch (IOException e) {
            // already closed
        }
    }

    @Override
    public void close() {
        try {
            server.close();
        } catch (IOException e) {
            // already closed
        }
        down();
    }
}
