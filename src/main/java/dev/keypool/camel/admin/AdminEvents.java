package dev.keypool.camel.admin;

import java.io.IOException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.keypool.camel.pipeline.Exchanges;
import dev.keypool.camel.pipeline.StreamRelay;
import dev.keypool.events.Event;
import dev.keypool.events.EventLog;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpServerResponse;
import org.apache.camel.Exchange;
import org.apache.camel.component.platform.http.vertx.HttpMessage;

/**
 * GET /admin/events: the last state changes as JSON, or with {@code ?stream=true} as Server-Sent Events, each change
 * one {@code data:} event with its number as {@code id:}. {@code ?since=<id>} (or a {@code Last-Event-ID} header) starts
 * after a change already seen, so that a reader of the JSON list can go on with the stream without a gap.
 */
public final class AdminEvents {

    /** A comment line this often keeps proxies from closing a quiet stream. */
    private static final long KEEP_ALIVE_SECONDS = 15;
    /** How often a stream looks whether the gateway is stopping: an open dashboard must not hold up a shutdown. */
    private static final long STOP_CHECK_MILLIS = 200;

    private final EventLog log;
    private final ObjectMapper mapper;

    public AdminEvents(EventLog log, ObjectMapper mapper) {
        this.log = log;
        this.mapper = mapper;
    }

    /**
     * {@code {"events":[{"id","instance","at","channel","key","from","to","message"}…]}}, oldest first, the other
     * instances' too when they share a Redis; an alert also has {@code "type":"alert","rule","subject"} and goes from
     * {@code QUIET} to {@code FIRING}.
     */
    public void list(Exchange exchange) throws IOException {
        ObjectNode root = mapper.createObjectNode();
        ArrayNode events = root.putArray("events");
        log.since(since(exchange)).forEach(entry -> events.add(json(entry)));
        Exchanges.answer(exchange.getMessage(), 200, "application/json", mapper.writeValueAsBytes(root));
    }

    /**
     * The stream, written to the Vert.x response on this (virtual) thread, which waits until the client leaves: an
     * InputStream body would not be flushed event by event by platform-http (see {@link StreamRelay}).
     */
    public void stream(Exchange exchange) throws InterruptedException {
        HttpMessage http = exchange.getIn(HttpMessage.class);
        if (http == null) {
            throw new IllegalStateException("the events stream needs the HTTP entry point");
        }
        HttpServerResponse response = http.getResponse();
        CountDownLatch gone = new CountDownLatch(1);
        response.closeHandler(v -> gone.countDown());
        response.setStatusCode(200).setChunked(true)
                .putHeader("Content-Type", "text/event-stream")
                .putHeader("Cache-Control", "no-cache");
        response.write(": KeyPool state changes\n\n");
        EventLog.Subscription subscription = log.subscribe(since(exchange), entry -> {
            if (response.writeQueueFull()) {
                response.close();   // a reader this far behind is gone for practical purposes
            } else {
                response.write(Buffer.buffer("id: " + entry.id() + "\ndata: " + json(entry) + "\n\n"));
            }
        });
        try {
            long quietSince = System.nanoTime();
            while (!gone.await(STOP_CHECK_MILLIS, TimeUnit.MILLISECONDS) && !exchange.getContext().isStopping()) {
                if (System.nanoTime() - quietSince >= TimeUnit.SECONDS.toNanos(KEEP_ALIVE_SECONDS)) {
                    response.write(": keep-alive\n\n");
                    quietSince = System.nanoTime();
                }
            }
        } catch (RuntimeException closedMeanwhile) {
            // the client went between two checks: nothing to tell it
        } finally {
            subscription.close();
            try {
                response.end();
            } catch (RuntimeException alreadyClosed) {
                // marks the response ended, so that platform-http does not answer a closed connection
            }
            exchange.getMessage().setBody(null);
        }
    }

    private ObjectNode json(EventLog.Entry entry) {
        Event event = entry.event();
        ObjectNode node = mapper.createObjectNode();
        node.put("id", entry.id());
        node.put("instance", event.instance());
        node.put("at", event.at().toString());
        node.put("channel", event.channel());
        event.details().forEach(node::put);
        node.put("from", event.from());
        node.put("to", event.to());
        node.put("message", event.message());
        return node;
    }

    private static long since(Exchange exchange) {
        String since = exchange.getMessage().getHeader("since", String.class);
        if (since == null) {
            since = exchange.getMessage().getHeader("Last-Event-ID", String.class);
        }
        try {
            return since == null ? 0 : Math.max(0, Long.parseLong(since.trim()));
        } catch (NumberFormatException notANumber) {
            return 0;
        }
    }
}
