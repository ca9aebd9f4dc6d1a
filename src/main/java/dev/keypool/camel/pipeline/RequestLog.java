package dev.keypool.camel.pipeline;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.regex.Pattern;

import dev.keypool.gateway.GatewayRequest;
import dev.keypool.metrics.GatewayMetrics;
import dev.keypool.store.RequestLogRow;
import dev.keypool.store.RequestLogWriter;
import dev.keypool.tenant.Tenant;
import org.apache.camel.Exchange;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The request log (routes/request-log.camel.yaml): names each request ({@code X-Request-Id}), and when its answer is
 * known offers its row, a small immutable record, to the log's bounded queue without waiting. A full queue drops the
 * row and counts it ({@code keypool_request_log_dropped_total}). The writer route takes every queued row at once
 * ({@link #drain}) on its beat and inserts them in one transaction; a stopping gateway writes what is left
 * ({@link #writeRemaining}).
 */
public final class RequestLog {

    private static final Logger LOG = LoggerFactory.getLogger(RequestLog.class);

    /** The request's id, the client's when it sent a sane one: on every answer, and in its row. */
    public static final String HEADER = "X-Request-Id";
    /** The exchange property holding the id once named. */
    static final String REQUEST_ID = "kpRequestId";
    /** {@link System#nanoTime()} when the request entered the gateway core. */
    static final String STARTED = "kpStartedNanos";
    /** A relayed stream's assembled answer text (a StringBuilder), kept for the row when bodies are logged. */
    static final String STREAMED_ANSWER = "kpStreamedAnswer";
    /** What an id the client sends may be: what log and trace tools send, nothing that could break a header or a query. */
    private static final Pattern SANE_ID = Pattern.compile("[A-Za-z0-9._:\\-]{1,128}");
    /** The {@code pool} of an answer from a model group's response cache: one string for every such row. */
    private static final String CACHE_HIT = ResponseCaching.FROM_CACHE + "-" + ResponseCaching.HIT;
    private static final String CACHE_STALE = ResponseCaching.FROM_CACHE + "-" + ResponseCaching.STALE;

    private final boolean enabled;
    private final BlockingQueue<RequestLogRow> queue;
    private final Clock clock;
    private final GatewayMetrics metrics;
    private final Duration retention;
    private final boolean bodies;
    private final int bodyMaxBytes;
    private final AtomicBoolean failing = new AtomicBoolean();

    /**
     * @param queue        the rows waiting for the writer, bounded; {@code enabled} false offers nothing to it
     * @param bodies       whether rows keep the request's body and its answer ({@code requestLog.bodies})
     * @param bodyMaxBytes the most bytes of each kept
     */
    public RequestLog(boolean enabled, BlockingQueue<RequestLogRow> queue, Clock clock, GatewayMetrics metrics,
                      Duration retention, boolean bodies, int bodyMaxBytes) {
        this.bodies = bodies;
        this.bodyMaxBytes = bodyMaxBytes;
        this.enabled = enabled;
        this.queue = queue;
        this.clock = clock;
        this.metrics = metrics;
        this.retention = retention;
        metrics.requestLogDropped(0);
    }

    /** First step of the gateway core, before the client's headers are dropped: the id, and when the request began. */
    public void identify(Exchange exchange) {
        id(exchange);
        if (exchange.getProperty(STARTED) == null) {
            exchange.setProperty(STARTED, System.nanoTime());
        }
    }

    /** The request's id: named once, from the client's {@code X-Request-Id} when sane, else a new one. */
    static String id(Exchange exchange) {
        String id = exchange.getProperty(REQUEST_ID, String.class);
        if (id == null) {
            String asked = exchange.getMessage().getHeader(HEADER, String.class);
            id = asked != null && SANE_ID.matcher(asked).matches() ? asked : newId();
            exchange.setProperty(REQUEST_ID, id);
        }
        return id;
    }

    private static String newId() {
        ThreadLocalRandom random = ThreadLocalRandom.current();
        return "req_" + Long.toHexString(random.nextLong() | Long.MIN_VALUE) + Long.toHexString(random.nextLong() | Long.MIN_VALUE);
    }

    /** The row of a request answered by a provider (or its stream), with its status; never waits, never throws. */
    void answered(Exchange exchange, GatewayRequest request, int status) {
        offer(exchange, request, status, null);
    }

    /** The row of a request the gateway answered with an error of its own. */
    void failed(Exchange exchange, GatewayRequest request, int status, String errorCode) {
        offer(exchange, request, status, errorCode);
    }

    private void offer(Exchange exchange, GatewayRequest request, int status, String errorCode) {
        if (!enabled) {
            return;
        }
        if (!queue.offer(row(exchange, request, status, errorCode))) {
            metrics.requestLogDropped(1);
        }
    }

    private RequestLogRow row(Exchange exchange, GatewayRequest request, int status, String errorCode) {
        long now = System.nanoTime();
        Long started = exchange.getProperty(STARTED, Long.class);
        long latencyMs = started != null ? (now - started) / 1_000_000
                : Math.max(0, System.currentTimeMillis() - exchange.getClock().getCreated());
        String source = exchange.getProperty(Exchanges.BATCH_LINE) != null ? "batch"
                : exchange.getProperty(Exchanges.TASK_ID) != null ? "async" : "api";
        String api = exchange.getProperty(Exchanges.API, String.class);
        long time = clock.millis();
        ClientRequest asked = exchange.getProperty(Exchanges.CLIENT_REQUEST, ClientRequest.class);
        String requestBody = bodies ? requestBody(asked, request) : null;
        if (request == null) {
            // refused before its channels were planned: the model it asked for, once its body was read
            Tenant tenant = exchange.getProperty(Exchanges.TENANT, Tenant.class);
            return new RequestLogRow(time, id(exchange), source, tenant == null ? GatewayRequest.NO_TENANT : tenant.name(),
                    api, asked == null ? null : asked.model(), null, null, null, null, 0, null, status, errorCode, 0, 0,
                    0, 0, 0, latencyMs, null, requestBody, null);
        }
        boolean served = request.isServed();
        Long ttfbMs = started != null && request.firstByteNanos() != 0
                ? (request.firstByteNanos() - started) / 1_000_000 : null;
        return new RequestLogRow(time, id(exchange), source, request.tenant(), api == null ? request.api().configName() : api,
                request.model(),
                served ? request.servedBy().upstreamModel(request.model()) : null,
                served ? request.servedBy().name() : null,
                served ? request.servedKey().fingerprint() : null,
                served ? (request.keyScope().isOwn(request.servedKey()) ? "own" : "shared") : fromCache(exchange),
                request.totalAttempts(), served ? request.level() : null, status, errorCode,
                request.promptTokens(), request.completionTokens(), request.cachedTokens(), request.cacheWriteTokens(),
                request.costUsd(), latencyMs, ttfbMs, requestBody, bodies && errorCode == null ? answerBody(exchange) : null);
    }

    /** {@code cache-hit} or {@code cache-stale} for an answer of a model group's response cache, else null. */
    private static String fromCache(Exchange exchange) {
        String how = exchange.getProperty(ResponseCaching.CACHE_ANSWER, String.class);
        return how == null ? null : ResponseCaching.HIT.equals(how) ? CACHE_HIT : CACHE_STALE;
    }

    /**
     * The client's JSON body as it was read (an upload, multipart or on disk, is not kept); for a request a channel of
     * the other format served, the translated body that provider got (design §17).
     */
    private String requestBody(ClientRequest asked, GatewayRequest request) {
        if (request != null && request.isServed() && request.translation() != null
                && request.upstreamBody() instanceof byte[] translated) {
            return capped(translated);
        }
        if (asked == null || asked.body() == null || !isText(asked.body().contentType())) {
            return null;
        }
        return asked.body().forModel(asked.model()) instanceof byte[] bytes ? capped(bytes) : null;
    }

    /** The answer the client got: a JSON or text body as it is, a stream as its assembled text (chat and completions). */
    private String answerBody(Exchange exchange) {
        Object streamed = exchange.getProperty(STREAMED_ANSWER);
        if (streamed != null) {
            return capped(streamed.toString().getBytes(StandardCharsets.UTF_8));
        }
        Object body = exchange.getMessage().getBody();
        if (!isText(exchange.getMessage().getHeader(Exchange.CONTENT_TYPE, String.class))) {
            return null;
        }
        if (body instanceof ByteBuffer buffer) {
            ByteBuffer view = buffer.duplicate();
            byte[] bytes = new byte[Math.min(view.remaining(), bodyMaxBytes)];
            view.get(bytes);
            return capped(bytes);
        }
        return body instanceof byte[] bytes ? capped(bytes) : null;
    }

    private static boolean isText(String contentType) {
        return contentType == null || contentType.contains("json") || contentType.startsWith("text/");
    }

    /** At most {@code bodyMaxBytes} of UTF-8 (a character cut in two at the end becomes U+FFFD). */
    private String capped(byte[] bytes) {
        return new String(bytes, 0, Math.min(bytes.length, bodyMaxBytes), StandardCharsets.UTF_8);
    }

    /** Every row queued now, oldest first, taken off the queue: the writer route's batch (empty when none). */
    public List<RequestLogRow> drain() {
        List<RequestLogRow> rows = new ArrayList<>(Math.max(16, queue.size()));
        queue.drainTo(rows);
        return rows;
    }

    /** The writer route's filter: whether a drained batch holds rows. */
    public boolean hasRows(List<RequestLogRow> batch) {
        return !batch.isEmpty();
    }

    /**
     * A stopping gateway's last batch, once the routes have stopped (the requests answered, the writer idle): the rows
     * still queued, written as the route writes them.
     */
    public void writeRemaining(RequestLogWriter writer) {
        List<RequestLogRow> rows = drain();
        if (rows.isEmpty()) {
            return;
        }
        try {
            writer.insert(rows);
            written();
        } catch (Exception e) {
            notWritten(rows.size(), e);
        }
    }

    /** A batch is in the database: if the ones before failed, say once that writing works again. */
    public void written() {
        if (failing.compareAndSet(true, false)) {
            LOG.info("Request log: writing to the database again");
        }
    }

    /** The database refused a batch: its rows are counted as dropped; the first failure of a run is logged. */
    public void notWritten(Exchange exchange) {
        List<?> rows = exchange.getMessage().getBody(List.class);
        notWritten(rows == null ? 0 : rows.size(), exchange.getProperty(Exchange.EXCEPTION_CAUGHT, Throwable.class));
    }

    private void notWritten(int lost, Throwable cause) {
        metrics.requestLogDropped(lost);
        if (failing.compareAndSet(false, true)) {
            // the class only: a driver's message may quote the URL
            LOG.warn("Request log: the database refused {} rows ({}); rows are dropped and counted in "
                    + "keypool_request_log_dropped_total until it takes them again", lost,
                    cause == null ? "unknown" : cause.getClass().getSimpleName());
        }
    }

    /** The header the retention route deletes by: rows older than {@code database.retention}, in epoch ms. */
    public long retentionCutoff() {
        return clock.millis() - retention.toMillis();
    }
}
