package dev.keypool.camel.http;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;

import dev.keypool.gateway.GatewayError;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpServerRequest;
import org.apache.camel.Exchange;

/**
 * Reads a request body that platform-http left unread ({@code useBodyHandler: false}): its Vert.x body handler
 * would parse a multipart upload into form fields and files on disk and keep none of the bytes, and the gateway
 * forwards them as they came. On the HTTP server {@link RequestEdge} has written it to a file already; a request
 * that did not come that way is read here.
 */
public final class RequestBodies {

    /** The registry name of the {@link SpooledUploads}. */
    static final String SPOOLED_UPLOADS = "spooledUploads";

    /** A client that sends nothing for this long has given up. */
    private static final long READ_TIMEOUT_SECONDS = 300;

    private RequestBodies() {
    }

    /**
     * The whole body, at most {@code maxBytes}. A larger one is read to its end and dropped, so that the client
     * gets its 413 rather than a connection closed in the middle of its upload.
     */
    public static byte[] read(Exchange exchange, long maxBytes) {
        Object body = exchange.getMessage().getBody();
        if (!(body instanceof HttpServerRequest request)) {
            byte[] bytes = exchange.getMessage().getBody(byte[].class);
            if (bytes != null && bytes.length > maxBytes) {
                throw GatewayError.tooLarge(bytes.length, maxBytes);
            }
            return bytes == null ? new byte[0] : bytes;
        }
        Path spooled = spooled(exchange);
        if (spooled != null) {
            return read(spooled, maxBytes);
        }
        CompletableFuture<byte[]> done = new CompletableFuture<>();
        AtomicLong size = new AtomicLong();
        Buffer collected = Buffer.buffer();
        // the handlers run on the connection's event loop, one at a time
        request.handler(chunk -> {
            if (size.addAndGet(chunk.length()) <= maxBytes) {
                collected.appendBuffer(chunk);
            }
        });
        request.exceptionHandler(done::completeExceptionally);
        request.endHandler(v -> done.complete(size.get() > maxBytes ? null : collected.getBytes()));
        request.resume();
        byte[] bytes = await(done);
        if (bytes == null) {
            throw GatewayError.tooLarge(size.get(), maxBytes);
        }
        return bytes;
    }

    /** The file {@link RequestEdge} wrote the body to as it arrived; null when the request came another way. */
    public static Path spooled(Exchange exchange) {
        if (!(exchange.getMessage().getBody() instanceof HttpServerRequest request)) {
            return null;
        }
        SpooledUploads uploads = exchange.getContext().getRegistry().lookupByNameAndType(SPOOLED_UPLOADS, SpooledUploads.class);
        return uploads == null ? null : uploads.of(request);
    }

    /** An upload {@link RequestEdge} wrote to disk while it arrived. */
    private static byte[] read(Path file, long maxBytes) {
        try {
            long size = Files.size(file);
            if (size > maxBytes) {
                throw GatewayError.tooLarge(size, maxBytes);
            }
            return Files.readAllBytes(file);
        } catch (IOException e) {
            throw new UncheckedIOException("upload could not be read back", e);
        }
    }

    private static byte[] await(CompletableFuture<byte[]> done) {
        try {
            return done.get(READ_TIMEOUT_SECONDS, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();   // the client hung up (Admission)
            throw new IllegalStateException(new InterruptedIOException("client gone while sending its body"));
        } catch (ExecutionException | TimeoutException e) {
            throw new IllegalStateException(new IOException("request body could not be read", e));
        }
    }
}
