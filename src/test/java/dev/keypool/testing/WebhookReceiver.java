package dev.keypool.testing;

import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;

import com.sun.net.httpserver.HttpServer;

/**
 * A webhook on loopback, as an alert sink's receiver: keeps what it was sent and answers 204.
 */
public final class WebhookReceiver implements AutoCloseable {

    /** One request: its path, Content-Type and body. */
    public record Received(String path, String contentType, String body) {
    }

    private final HttpServer server;
    private final List<Received> received = new CopyOnWriteArrayList<>();

    public WebhookReceiver() {
        try {
            server = HttpServer.create(new InetSocketAddress("127.0.0.1", FreePorts.next()), 0);
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
        server.setExecutor(Executors.newCachedThreadPool());
        server.createContext("/", exchange -> {
            try (InputStream in = exchange.getRequestBody()) {
                String body = new String(in.readAllBytes(), StandardCharsets.UTF_8);
                received.add(new Received(exchange.getRequestURI().getPath(),
                        exchange.getRequestHeaders().getFirst("Content-Type"), body));
                exchange.sendResponseHeaders(204, -1);
            } finally {
                exchange.close();
            }
        });
        server.start();
    }

    public String url(String path) {
        return "http://127.0.0.1:" + server.getAddress().getPort() + path;
    }

    public List<Received> received() {
        return List.copyOf(received);
    }

    @Override
    public void close() {
        server.stop(0);
        ((java.util.concurrent.ExecutorService) server.getExecutor()).shutdownNow();
    }
}
