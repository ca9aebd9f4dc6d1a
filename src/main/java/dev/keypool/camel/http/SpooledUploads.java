package dev.keypool.camel.http;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;
import java.util.stream.Stream;

import dev.keypool.gateway.GatewayError;
import io.vertx.core.file.AsyncFile;
import io.vertx.core.file.OpenOptions;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.HttpVersion;
import io.vertx.ext.web.RoutingContext;

/**
 * Upload bodies (batch files, audio) written to {@code state.dir/uploads} as they arrive, with back-pressure, so that
 * a large or slow upload holds a file instead of heap and no request thread until it is all there; the routes then
 * work from the file ({@link RequestBodies#spooled}): a batch file is stored from it, an audio upload sent to its
 * provider from it. Each file is deleted when its request is answered.
 */
final class SpooledUploads {

    private final Path dir;
    private final Map<HttpServerRequest, Path> spooled = new ConcurrentHashMap<>();

    /** Uploads under {@code dir}; files left there by a process that stopped mid-upload are deleted. */
    SpooledUploads(Path dir) {
        this.dir = dir;
        try {
            Files.createDirectories(dir);
            try (Stream<Path> left = Files.list(dir)) {
                for (Path file : (Iterable<Path>) left::iterator) {
                    Files.deleteIfExists(file);
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot prepare the upload directory " + dir, e);
        }
    }

    /**
     * Writes the body of the request to a file, at most {@code limit} bytes ({@code refuse} is told 413 past them), then
     * passes the request on ({@code context.next()}). Runs on the request's event loop.
     */
    void spool(RoutingContext context, long limit, Consumer<GatewayError> refuse) {
        HttpServerRequest request = context.request();
        // nothing of the body may go by while the file opens
        request.pause();
        Path file = dir.resolve(UUID.randomUUID() + ".upload");
        context.addEndHandler(v -> {
            spooled.remove(request);
            context.vertx().fileSystem().delete(file.toString());
        });
        context.vertx().fileSystem().open(file.toString(), new OpenOptions().setWrite(true).setCreateNew(true))
                .onFailure(context::fail)
                .onSuccess(out -> receive(context, request, out, file, limit, refuse));
    }

    private void receive(RoutingContext context, HttpServerRequest request, AsyncFile out, Path file, long limit,
            Consumer<GatewayError> refuse) {
        long[] size = {0};
        boolean[] over = {false};
        request.handler(chunk -> {
            if (over[0]) {
                return;
            }
            size[0] += chunk.length();
            if (size[0] > limit) {
                over[0] = true;
                out.close();
                refuse.accept(GatewayError.tooLarge(size[0], limit));
                return;
            }
            out.write(chunk);
            if (out.writeQueueFull()) {
                request.pause();
                out.drainHandler(v -> request.resume());
                // the file's writes complete off this thread: the queue may have drained before the handler was set,
                // and then no drain event comes and the upload would wait forever
                if (!out.writeQueueFull()) {
                    request.resume();
                }
            }
        });
        request.exceptionHandler(e -> out.close());
        request.endHandler(v -> {
            if (over[0] || context.response().ended()) {
                out.close();   // refused, or timed out: the end handler deletes the file
                return;
            }
            out.close().onFailure(context::fail).onSuccess(closed -> {
                spooled.put(request, file);
                context.next();
            });
        });
        if ("100-continue".equalsIgnoreCase(request.getHeader(HttpHeaders.EXPECT))
                && request.version() != HttpVersion.HTTP_1_0) {
            context.response().writeContinue();
        }
        request.resume();
    }

    /** The file the body of {@code request} was written to; null when it was not spooled. */
    Path of(HttpServerRequest request) {
        return spooled.get(request);
    }
}
