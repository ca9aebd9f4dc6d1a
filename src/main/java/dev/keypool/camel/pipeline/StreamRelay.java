package dev.keypool.camel.pipeline;

import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.keypool.camel.http.ArrivingBytes;
import dev.keypool.camel.http.ClientHangup;
import dev.keypool.gateway.AnswerTooLarge;
import dev.keypool.gateway.Attempt;
import dev.keypool.gateway.GatewayRequest;
import dev.keypool.gateway.SseEventBuffer;
import dev.keypool.gateway.StreamEvent;
import dev.keypool.gateway.StreamFormat;
import dev.keypool.gateway.StreamLimits;
import dev.keypool.quota.TokenEstimator;
import dev.keypool.gateway.TokenUsage;
import dev.keypool.translate.StreamTranslator;
import dev.keypool.translate.Translation;
import io.vertx.core.Context;
import org.apache.camel.AsyncCallback;
import org.apache.camel.AsyncProcessor;
import org.apache.camel.Exchange;
import org.apache.camel.support.AsyncCallbackToCompletableFutureAdapter;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Relays a provider's Server-Sent Events to the client event by event, reading the body as it arrives
 * ({@code UpstreamStream}): to the HTTP client's response, or to the {@link StreamClient} of an application that runs
 * the pipeline in its own JVM. For the HTTP client, the first event is written on the event loop its bytes came on
 * (they are at hand when the provider call is answered; one that comes in pieces is awaited there, holding no
 * thread), and the stream goes on on a thread of its own that blocks between events. Writing it on the event loop
 * spares it two hand-offs between threads: to the relay's thread, and back to the event loop for the write
 * (bench/README.md, "Where a first event's time goes"). Elsewhere (an application's stream client, a request answered
 * on a thread) the whole relay runs on the thread the route reaches it on.
 *
 * <p>Why not return the InputStream as the body: camel-platform-http-vertx 4.18.0 fills a 16 KB buffer before
 * it writes anything (https://issues.apache.org/jira/browse/CAMEL-23804, fixed after 4.18.0). So the relay
 * writes to the Vert.x response itself and ends it; the consumer then finds the response ended and sends nothing.
 *
 * <p>Until the first whole event has been read, a failure is an ordinary failed attempt (another key, the
 * breaker, the fallback walk). After the head has gone out nothing fails over: a broken upstream becomes an SSE
 * error event and the end of the stream, never a clean end that looks complete.
 *
 * <p>A provider cannot make a stream hold the gateway without end ({@link StreamLimits}): an event over
 * {@code keypool.max-sse-event-bytes} or a stream still going after {@code keypool.max-stream-seconds} fails the
 * attempt like a broken connection (checked as bytes arrive; a provider that sends nothing is cut by the channel's
 * timeout on each read).
 *
 * @param clock   stamps a translated stream's OpenAI chunks ({@code created})
 * @param threads where a stream whose first event went out on the event loop goes on, and a failure before it
 */
public record StreamRelay(ObjectMapper mapper, TokenEstimator tokens, StreamLimits limits, Clock clock, Executor threads)
        implements AsyncProcessor {

    private static final Logger LOG = LoggerFactory.getLogger(StreamRelay.class);

    /** How a relayed stream ended: whole; cut; by the provider's own failure event (relayed as it came); client gone. */
    private enum Ending { COMPLETE, BROKEN, UPSTREAM_FAILED, CLIENT_GONE }

    /** The whole relay on the calling thread, which it blocks until the stream is over. */
    @Override
    public void process(Exchange exchange) throws IOException {
        relay(exchange);
    }

    /**
     * On the event loop that received the provider's first bytes ({@code UpstreamHttpComponent} goes on there for a
     * client of the gateway's HTTP server): the first event is read from what has come, waiting on the event loop
     * for the rest of it when it came in pieces, and written to the client with the head from here; the rest of the
     * stream goes to a thread of {@code threads}, which may block. A failure before the first event goes to that thread
     * too: the retry it leads to may wait (a backoff, a key picked elsewhere). On any other thread the whole relay runs
     * on it, as {@link #relay} does.
     */
    @Override
    public boolean process(Exchange exchange, AsyncCallback callback) {
        if (!Context.isOnEventLoopThread()) {
            try {
                relay(exchange);
            } catch (IOException | RuntimeException e) {
                exchange.setException(e);
            }
            callback.done(true);
            return true;
        }
        Stream stream;
        try {
            stream = new Stream(exchange);
        } catch (IOException | RuntimeException e) {
            exchange.setException(e);
            threads.execute(() -> callback.done(false));
            return false;
        }
        if (stream.client instanceof HttpStreamClient && stream.upstream instanceof ArrivingBytes arriving) {
            // a client that hangs up while the first event is awaited here ends the provider's call
            ClientHangup hangup = exchange.getProperty(Exchanges.CLIENT_GONE, ClientHangup.class);
            if (hangup != null) {
                hangup.whileWaiting(() -> abort(stream.upstream));
            }
            stream.firstOnEventLoop(exchange, callback, arriving);
        } else {
            stream.restOnThread(exchange, callback);
        }
        return false;
    }

    @Override
    public CompletableFuture<Exchange> processAsync(Exchange exchange) {
        AsyncCallbackToCompletableFutureAdapter<Exchange> callback = new AsyncCallbackToCompletableFutureAdapter<>(exchange);
        process(exchange, callback);
        return callback.getFuture();
    }

    /** Relays the whole stream on this thread, blocking between events. */
    public void relay(Exchange exchange) throws IOException {
        new Stream(exchange).rest(exchange);
    }

    /** One provider's stream to one client: its first event read, then relayed ({@link Relay}). */
    private final class Stream {

        private final GatewayRequest request;
        private final StreamClient client;
        private final InputStream upstream;
        private final SseEventBuffer events = limits.eventBuffer();
        private final long deadline = limits.deadlineNanos();
        private List<byte[]> first = List.of();
        /** Once the first event has gone to the client (the head with it). */
        private Relay relay;
        private Ending ending;

        Stream(Exchange exchange) throws EOFException {
            request = Exchanges.request(exchange);
            client = exchange.getProperty(StreamClient.PROPERTY, StreamClient.class);
            upstream = exchange.getMessage().getBody(InputStream.class);
            if (upstream == null) {
                throw new EOFException("upstream answered 200 without a body");
            }
        }

        /**
         * On the event loop: the first event from what has come, once it is whole (waiting there for more while it is
         * not), then the head and it to the client; then the rest on a thread.
         */
        void firstOnEventLoop(Exchange exchange, AsyncCallback callback, ArrivingBytes arriving) {
            try {
                if (!firstAtHand()) {
                    if (System.nanoTime() - deadline > 0) {
                        abort(upstream);
                        throw new SocketTimeoutException("no whole event within keypool.max-stream-seconds");
                    }
                    if (arriving.whenMoreArrives(() -> firstOnEventLoop(exchange, callback, arriving))) {
                        return;
                    }
                    // the stream ended or failed before its first event: the read on the thread says how
                } else {
                    start(exchange);
                }
            } catch (IOException | RuntimeException e) {
                exchange.setException(e);
                threads.execute(() -> callback.done(false));
                return;
            }
            restOnThread(exchange, callback);
        }

        /** The rest of the stream on a thread of {@code threads}, which the client's hang-up interrupts. */
        void restOnThread(Exchange exchange, AsyncCallback callback) {
            threads.execute(() -> {
                ClientHangup hangup = exchange.getProperty(Exchanges.CLIENT_GONE, ClientHangup.class);
                if (hangup != null) {
                    hangup.whileRunningOn(Thread.currentThread());
                }
                try {
                    rest(exchange);
                } catch (IOException | RuntimeException e) {
                    exchange.setException(e);
                }
                callback.done(false);
            });
        }

        /** Reads, without waiting, what has come of the provider's stream: whether its first event is whole. */
        private boolean firstAtHand() throws IOException {
            try {
                while (first.isEmpty() && upstream.available() > 0) {
                    first = events.read(upstream);
                }
            } catch (AnswerTooLarge overLimit) {
                abort(upstream);
                throw overLimit;
            }
            return !first.isEmpty();
        }

        /** Waits for the first whole event; before it reaches the client, any failure here is retried elsewhere. */
        private void awaitFirst() throws IOException {
            try {
                while (first.isEmpty()) {
                    first = events.read(upstream);
                    if (first == null) {
                        throw new EOFException("upstream closed the stream before its first event");
                    }
                    if (first.isEmpty() && System.nanoTime() - deadline > 0) {
                        throw new SocketTimeoutException("no whole event within keypool.max-stream-seconds");
                    }
                }
            } catch (AnswerTooLarge | SocketTimeoutException overLimit) {
                // the rest of the answer is not read: the call is reset, not drained
                abort(upstream);
                throw overLimit;
            }
        }

        /** The head and the first event to the client: from here on nothing fails over. */
        void start(Exchange exchange) {
            request.attempt().firstByte();
            relay = new Relay(request, client, upstream, deadline);
            try {
                relay.head(RequestLog.id(exchange));
                if (relay.forward(first)) {
                    ending = relay.ended();
                }
            } catch (RuntimeException | InterruptedException e) {
                ending = relay.brokenBy(e);
            }
            // not held through the rest of the stream, which the thread that relays it keeps this object for
            first = List.of();
        }

        /** The rest of the stream, blocking between events, and its outcome. */
        void rest(Exchange exchange) throws IOException {
            if (relay == null) {
                awaitFirst();
                start(exchange);
            }
            if (ending == null) {
                try {
                    ending = relay.pump(events);
                } catch (RuntimeException | IOException | InterruptedException e) {
                    ending = relay.brokenBy(e);
                }
            }
            Attempt attempt = request.attempt();
            // the outcome is recorded before the client sees the end, so that anyone the client tells
            // (an operator reading /admin/status, a test) finds the stats already updated
            switch (ending) {
                case COMPLETE -> {
                    if (relay.sawUsage) {
                        attempt.succeeded(new TokenUsage(relay.promptTokens, relay.completionTokens, relay.cachedTokens,
                                relay.cacheWriteTokens));
                    } else {
                        // a provider that reports no usage in its stream: the prompt as estimated, the answer as streamed
                        attempt.succeeded(request.estimatedPromptTokens(),
                                tokens.count(request.current().upstreamModel(request.model()), relay.answer));
                    }
                }
                case BROKEN -> attempt.streamBroke("stream broken (" + relay.brokenBy + ")");
                case UPSTREAM_FAILED -> attempt.streamBroke("stream ended by a provider error event");
                case CLIENT_GONE -> attempt.clientGone();
            }
            if (relay.answer.length() > 0) {
                exchange.setProperty(RequestLog.STREAMED_ANSWER, relay.answer);
            }
            relay.finish(ending);
            exchange.getMessage().setBody(null);
        }
    }

    /** One stream being relayed. */
    private final class Relay {

        private final GatewayRequest request;
        private final StreamClient client;
        private final InputStream upstream;
        /** The provider's format, read for the usage and the end. */
        private final StreamFormat format;
        /** For a channel of the other format, the converter into the client's events (design §17); else null. */
        private final StreamTranslator translator;
        private final long deadline;
        private volatile boolean clientGone;
        private long promptTokens;
        private long completionTokens;
        private long cachedTokens;
        private long cacheWriteTokens;
        private boolean sawUsage;
        /** The answer's text, kept while no event has reported usage (chat and completions only). */
        private final StringBuilder answer = new StringBuilder();
        private int eventsSent;
        private String brokenBy;
        private boolean upstreamFailed;

        Relay(GatewayRequest request, StreamClient client, InputStream upstream, long deadline) {
            this.request = request;
            this.deadline = deadline;
            this.client = client;
            this.upstream = upstream;
            this.format = request.streamFormat();
            Translation translation = request.translation();
            this.translator = translation == null ? null
                    : translation.stream(mapper, request.clientAskedStreamUsage(), clock.instant().getEpochSecond());
        }

        void head(String requestId) {
            // a client that leaves mid-stream cancels the upstream call, which frees the key and this thread
            client.onGone(() -> {
                clientGone = true;
                abort(upstream);
            });
            Map<String, String> headers = new LinkedHashMap<>();
            headers.put(RequestLog.HEADER, requestId);
            request.responseHeaders(headers::put);
            client.open(headers);
        }

        /** Nothing may escape once the head is out: a retry would write a second response. */
        Ending brokenBy(Exception e) {
            brokenBy = e.getClass().getSimpleName();
            if (e instanceof InterruptedException) {
                Thread.currentThread().interrupt();
            }
            return clientGone ? Ending.CLIENT_GONE : Ending.BROKEN;
        }

        /** How a stream whose end event went out ended. */
        Ending ended() {
            return upstreamFailed ? Ending.UPSTREAM_FAILED : Ending.COMPLETE;
        }

        /** The events after the first batch, until the end event or a failure. */
        Ending pump(SseEventBuffer events) throws IOException, InterruptedException {
            boolean done = false;
            while (!done) {
                List<byte[]> next;
                try {
                    next = events.read(upstream);
                } catch (AnswerTooLarge e) {
                    brokenBy = e.getMessage();
                    return Ending.BROKEN;
                } catch (IOException e) {
                    if (clientGone) {
                        return Ending.CLIENT_GONE;
                    }
                    brokenBy = e.getClass().getSimpleName();
                    return Ending.BROKEN;
                }
                if (next == null) {
                    // the upstream ended without its end event: the client must not take this for a whole answer
                    brokenBy = "end of stream before " + request.streamFormat().endName();
                    return Ending.BROKEN;
                }
                done = forward(next);
                if (clientGone) {
                    return Ending.CLIENT_GONE;
                }
                if (!done && System.nanoTime() - deadline > 0) {
                    brokenBy = "still streaming after keypool.max-stream-seconds";
                    return Ending.BROKEN;
                }
            }
            return ended();
        }

        /** Writes whole events; returns true once the stream's end event ([DONE], response.completed, message_stop …) went out. */
        private boolean forward(List<byte[]> batch) throws InterruptedException {
            for (byte[] event : batch) {
                StreamEvent seen = format.read(event, mapper);
                if (seen.hasUsage()) {
                    sawUsage = true;
                    // Anthropic reports the prompt in message_start and the answer in message_delta: keep each side
                    if (seen.promptTokens() != TokenUsage.ABSENT) {
                        promptTokens = seen.promptTokens();
                        cachedTokens = seen.cachedTokens();
                        cacheWriteTokens = seen.cacheWriteTokens();
                    }
                    if (seen.completionTokens() != TokenUsage.ABSENT) {
                        completionTokens = seen.completionTokens();
                    }
                }
                if (translator != null) {
                    for (byte[] translated : translator.translate(event)) {
                        write(translated);
                    }
                } else if (seen.usageOnly() && request.usageAddedByGateway()) {
                    continue;   // the client did not ask for the usage chunk: it was for our accounting
                } else {
                    write(event);
                }
                eventsSent++;
                if (!sawUsage) {
                    // after the write: the client's event is not held up for our accounting
                    format.appendAnswerText(event, mapper, answer);
                }
                if (seen.done()) {
                    upstreamFailed = seen.failed();
                    return true;
                }
            }
            return false;
        }

        private void write(byte[] event) throws InterruptedException {
            if (!clientGone && !client.write(event)) {
                clientGone = true;   // a client that stopped reading: the provider's connection goes too
                abort(upstream);
            }
        }

        void finish(Ending ending) {
            abortIfOpen(ending);
            if (!clientGone && ending == Ending.BROKEN) {
                LOG.warn("Stream from channel [{}] broke after {} events ({}); client told with an error event",
                        request.current().name(), eventsSent, brokenBy);
                try {
                    client.write(errorEvent().getBytes(StandardCharsets.UTF_8));
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
            client.end();
        }

        private void abortIfOpen(Ending ending) {
            if (ending != Ending.COMPLETE) {
                abort(upstream);
            }
        }

        /** In the stream's own format: a data: error for chat, an {@code event: error} for Responses and Messages. */
        private String errorEvent() {
            return request.clientStreamFormat().errorEvent(mapper, "The upstream stream of channel " + request.current().name()
                    + " broke after " + eventsSent + " events; the answer is incomplete", eventsSent);
        }
    }

    /** Ends the provider's call without reading the rest of an endless stream (its request is reset). */
    private static void abort(InputStream upstream) {
        try {
            upstream.close();
        } catch (IOException | RuntimeException ignored) {
            // the call is being torn down anyway
        }
    }

}
