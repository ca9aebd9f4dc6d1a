package dev.keypool.testing;

import java.time.Clock;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.vertx.core.MultiMap;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.HttpVersion;
import io.vertx.core.net.PfxOptions;

/**
 * A fake OpenAI-compatible provider on loopback (Vert.x, non-blocking, so thousands of slow answers cost no
 * threads), which also speaks Anthropic's Messages API under /messages (answers, event streams, count_tokens). Each
 * API key, sent as Bearer or as x-api-key, can be told how to answer: OK, a status with an optional Retry-After,
 * slowly, or by resetting the connection. It counts the calls each key received and keeps what it was sent.
 *
 * <p>{@link #overTls} serves https with ALPN (h2, then http/1.1, as providers do): it counts the connections its
 * callers open and the protocol each request came over.
 */
public final class FakeUpstream implements AutoCloseable {

    /** One received request; {@code bytes} exactly as they arrived (multipart uploads, binary). */
    public record Received(String key, String path, MultiMap headers, String body, byte[] bytes, String query) {
    }

    /** What /audio/speech answers: bytes that are not text (every byte value), as audio/mpeg. */
    public static final byte[] SPEECH = speech();

    private record Behaviour(int status, String retryAfter, String body, long delayMs, boolean reset, int cutAfter) {
        Behaviour(int status, String retryAfter, String body, long delayMs, boolean reset) {
            this(status, retryAfter, body, delayMs, reset, -1);
        }
    }

    private static final ObjectMapper JSON = new ObjectMapper();
    /** HTTP/2's error code of a stream refused before it was processed. */
    private static final long REFUSED_STREAM = 0x7;
    private static final Behaviour OK = new Behaviour(200, null, null, 0, false);

    private final Vertx vertx = Vertx.vertx();
    private final HttpServer server;
    private final Map<String, Behaviour> behaviours = new ConcurrentHashMap<>();
    private final Map<String, RpmLimit> rpmLimits = new ConcurrentHashMap<>();
    private final AtomicInteger refusedByLimit = new AtomicInteger();
    private final java.util.Set<String> refusingStreams = ConcurrentHashMap.newKeySet();
    /** Keys whose next so many streams are refused, then served. */
    private final Map<String, AtomicInteger> streamsToRefuse = new ConcurrentHashMap<>();
    private final AtomicInteger streamsRefused = new AtomicInteger();
    private final Map<String, AtomicInteger> hits = new ConcurrentHashMap<>();
    private final List<Received> received = new CopyOnWriteArrayList<>();
    private final AtomicLong ids = new AtomicLong();
    private volatile long defaultDelayMs;
    /** Set: answers only as Azure OpenAI would (azure()); null: any OpenAI-shaped path. */
    private volatile String azureApiVersion;
    private volatile boolean keepRequests = true;
    private volatile int streamEvents = 5;
    private volatile long streamIntervalMs = 20;
    private final AtomicInteger streamsCancelled = new AtomicInteger();
    private final AtomicInteger streamsCompleted = new AtomicInteger();
    private final List<Runnable> heldAnswers = new java.util.ArrayList<>();
    private boolean holding;

    private final String scheme;
    private final AtomicInteger connectionsOpened = new AtomicInteger();
    private final AtomicInteger connectionsOpen = new AtomicInteger();
    private final AtomicInteger mostConnectionsOpen = new AtomicInteger();
    private final Map<HttpVersion, AtomicInteger> requestsByProtocol = new ConcurrentHashMap<>();

    public FakeUpstream() {
        this(new HttpServerOptions(), "http");
    }

    /**
     * Over TLS with this certificate, offering h2 and http/1.1 by ALPN; an h2 connection takes up to
     * {@code streamsPerConnection} requests at once (its SETTINGS_MAX_CONCURRENT_STREAMS).
     */
    public static FakeUpstream overTls(TestCertificate certificate, int streamsPerConnection) {
        HttpServerOptions tls = new HttpServerOptions().setSsl(true).setUseAlpn(true)
                .setKeyCertOptions(new PfxOptions().setPath(certificate.keyStore().toString())
                        .setPassword(certificate.password()))
                // a burst's connections open at once, their handshakes slow in a loaded test JVM: the gateway bounds them
                .setSslHandshakeTimeout(2).setSslHandshakeTimeoutUnit(TimeUnit.MINUTES)
                // a provider refusing streams (refuseStreams) sends as many resets as it is asked to: Vert.x's server
                // closes a connection that sends or receives 200 in 30 s (Netty's rapid-reset guard)
                .setHttp2RstFloodMaxRstFramePerWindow(Integer.MAX_VALUE);
        tls.getInitialSettings().setMaxConcurrentStreams(streamsPerConnection);
        return new FakeUpstream(tls, "https");
    }

    private FakeUpstream(HttpServerOptions options, String scheme) {
        this.scheme = scheme;
        server = vertx.createHttpServer(options.setHost("127.0.0.1").setPort(0).setAcceptBacklog(4096))
                .connectionHandler(connection -> {
                    connectionsOpened.incrementAndGet();
                    mostConnectionsOpen.accumulateAndGet(connectionsOpen.incrementAndGet(), Math::max);
                    connection.closeHandler(v -> connectionsOpen.decrementAndGet());
                })
                .requestHandler(this::handle);
        try {
            server.listen().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
        } catch (Exception e) {
            throw new IllegalStateException("fake upstream did not start", e);
        }
    }

    public int port() {
        return server.actualPort();
    }

    /** The server's origin, as an Azure channel's baseUrl ({resource}.openai.azure.com): KeyPool appends /openai/… */
    public String origin() {
        return scheme + "://127.0.0.1:" + port();
    }

    /**
     * From now on answers only what Azure OpenAI would: the key in {@code api-key} (else 401), {@code api-version}
     * equal to {@code apiVersion} (else 400), and a deployment path {@code /openai/deployments/{name}/…} or
     * {@code /openai/responses} (else 404).
     */
    public FakeUpstream azure(String apiVersion) {
        this.azureApiVersion = apiVersion;
        return this;
    }

    /** Base URL as a channel's baseUrl: /chat/completions and /embeddings are appended by KeyPool. */
    public String baseUrl() {
        return scheme + "://127.0.0.1:" + port() + "/v1";
    }

    public FakeUpstream answer(String key, int status) {
        return answer(key, status, null, null);
    }

    public FakeUpstream answer(String key, int status, String retryAfter, String body) {
        behaviours.put(key, new Behaviour(status, retryAfter, body, 0, false));
        return this;
    }

    public FakeUpstream slow(String key, long delayMs) {
        return slow(key, delayMs, 200);
    }

    /** Answers with this status after the delay. */
    public FakeUpstream slow(String key, long delayMs, int status) {
        behaviours.put(key, new Behaviour(status, null, null, delayMs, false));
        return this;
    }

    public FakeUpstream reset(String key) {
        behaviours.put(key, new Behaviour(0, null, null, 0, true));
        return this;
    }

    /**
     * Over HTTP/2, calls with this key are reset with REFUSED_STREAM, as a provider does with a stream over its limit or
     * while it sheds load (RFC 9113 §8.7: the call was not processed); the connection carries on.
     */
    public FakeUpstream refuseStreams(String key) {
        refusingStreams.add(key);
        return this;
    }

    /** Over HTTP/2, the next {@code count} calls with this key are refused as by {@link #refuseStreams}, then served. */
    public FakeUpstream refuseNextStreams(String key, int count) {
        streamsToRefuse.put(key, new AtomicInteger(count));
        return this;
    }

    /** Streams reset by {@link #refuseStreams} and {@link #refuseNextStreams}. */
    public int streamsRefused() {
        return streamsRefused.get();
    }

    /** A stream answered with this key closes the connection after {@code events} content events. */
    public FakeUpstream cutStreamAfter(String key, int events) {
        behaviours.put(key, new Behaviour(200, null, null, 0, false, events));
        return this;
    }

    /** Streams send this many content events, one every intervalMs, then the usage chunk if asked, then [DONE]. */
    public FakeUpstream streamEvents(int count, long intervalMs) {
        this.streamEvents = count;
        this.streamIntervalMs = intervalMs;
        return this;
    }

    /** Streams whose client (the gateway) went away before the last event. */
    public int streamsCancelled() {
        return streamsCancelled.get();
    }

    public int streamsCompleted() {
        return streamsCompleted.get();
    }

    public FakeUpstream healthy(String key) {
        behaviours.remove(key);
        abusive.remove(key);
        refusingStreams.remove(key);
        streamsToRefuse.remove(key);
        return this;
    }

    /** What a provider should never send, for the gateway's bounds on answers. */
    private enum Abuse { HUGE_ANSWER, HUGE_EVENT, ENDLESS_STREAM }

    private record AbusiveAnswer(Abuse kind, int bytes, int afterEvents) {
    }

    private final Map<String, AbusiveAnswer> abusive = new ConcurrentHashMap<>();
    private final AtomicInteger hugeAnswersCut = new AtomicInteger();

    /** Connections closed by the caller that a {@link #hugeAnswer} was sent on (the caller stopped reading). */
    public int hugeAnswersCut() {
        return hugeAnswersCut.get();
    }

    /** Calls with this key are answered 200 with a JSON body of about {@code bytes} bytes, chunked (no length said). */
    public FakeUpstream hugeAnswer(String key, int bytes) {
        abusive.put(key, new AbusiveAnswer(Abuse.HUGE_ANSWER, bytes, 0));
        return this;
    }

    /** Streams with this key send {@code afterEvents} chat events, then one event of {@code bytes} bytes, then [DONE]. */
    public FakeUpstream hugeEvent(String key, int afterEvents, int bytes) {
        abusive.put(key, new AbusiveAnswer(Abuse.HUGE_EVENT, bytes, afterEvents));
        return this;
    }

    /** Streams with this key send a chat event every 10 ms until their caller closes the connection. */
    public FakeUpstream endlessStream(String key) {
        abusive.put(key, new AbusiveAnswer(Abuse.ENDLESS_STREAM, 0, 0));
        return this;
    }

    private void abuse(HttpServerRequest request, AbusiveAnswer abuse) {
        var response = request.response().setStatusCode(200).setChunked(true);
        switch (abuse.kind()) {
            case HUGE_ANSWER -> {
                request.connection().closeHandler(v -> hugeAnswersCut.incrementAndGet());
                response.putHeader("Content-Type", "application/json").write("{\"filler\":\"");
                String chunk = "x".repeat(65536);
                for (int sent = 0; sent < abuse.bytes(); sent += chunk.length()) {
                    response.write(chunk);
                }
                response.end("\"}");
            }
            case HUGE_EVENT -> {
                response.putHeader("Content-Type", "text/event-stream");
                for (int i = 0; i < abuse.afterEvents(); i++) {
                    response.write(chatChunk(i));
                }
                response.write("data: " + "x".repeat(abuse.bytes()) + "\n\n");
                response.end("data: [DONE]\n\n");
            }
            case ENDLESS_STREAM -> {
                response.putHeader("Content-Type", "text/event-stream");
                response.closeHandler(v -> streamsCancelled.incrementAndGet());
                int[] sent = {0};
                vertx.setPeriodic(10, timer -> {
                    if (response.closed()) {
                        vertx.cancelTimer(timer);
                    } else {
                        response.write(chatChunk(sent[0]++));
                    }
                });
            }
        }
    }

    private static String chatChunk(int index) {
        return "data: {\"id\":\"chatcmpl-abuse\",\"object\":\"chat.completion.chunk\",\"created\":1700000000,"
                + "\"model\":\"fake-model\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"tok" + index
                + " \"},\"finish_reason\":null}]}\n\n";
    }

    /** Every key answers 200 after this delay (load tests). */
    public FakeUpstream delayAll(long delayMs) {
        this.defaultDelayMs = delayMs;
        return this;
    }

    /** Load tests need no copies of the requests. */
    public FakeUpstream keepRequests(boolean keep) {
        this.keepRequests = keep;
        return this;
    }

    public int hits(String key) {
        AtomicInteger n = hits.get(key);
        return n == null ? 0 : n.get();
    }

    public int totalHits() {
        return hits.values().stream().mapToInt(AtomicInteger::get).sum();
    }

    public Map<String, AtomicInteger> hitsByKey() {
        return hits;
    }

    public List<Received> received() {
        return received;
    }

    /** From now on plain (non-stream) answers wait until {@link #releaseAnswers()}. */
    public synchronized FakeUpstream holdAnswers() {
        holding = true;
        return this;
    }

    /** Requests received and not answered yet because of {@link #holdAnswers()}. */
    public synchronized int heldAnswers() {
        return heldAnswers.size();
    }

    /** Sends every held answer (to the connections still open) and stops holding. */
    public void releaseAnswers() {
        List<Runnable> answers;
        synchronized (this) {
            holding = false;
            answers = List.copyOf(heldAnswers);
            heldAnswers.clear();
        }
        vertx.runOnContext(v -> answers.forEach(Runnable::run));
    }

    private synchronized boolean held(Runnable answer) {
        if (holding) {
            heldAnswers.add(answer);
        }
        return holding;
    }

    public void clear() {
        hits.clear();
        received.clear();
    }

    /** As new: every key answers 200 at once, default streams, nothing held, nothing counted or kept, answer ids from 1 again (connections: from those open now). */
    public synchronized void restore() {
        behaviours.clear();
        abusive.clear();
        refusingStreams.clear();
        streamsToRefuse.clear();
        streamsRefused.set(0);
        rpmLimits.clear();
        refusedByLimit.set(0);
        defaultDelayMs = 0;
        keepRequests = true;
        streamEvents = 5;
        streamIntervalMs = 20;
        streamsCancelled.set(0);
        streamsCompleted.set(0);
        connectionsOpened.set(0);
        mostConnectionsOpen.set(connectionsOpen.get());
        requestsByProtocol.clear();
        ids.set(0);
        if (holding) {
            releaseAnswers();
        }
        clear();
    }

    /**
     * Enforces {@code rpm} requests per exact sliding 60 s on {@code key}, on {@code clock}, as a real provider
     * would: a call past it is answered 429 (counted by {@link #refusedByLimit()}).
     */
    public FakeUpstream limitRpm(String key, int rpm, Clock clock) {
        rpmLimits.put(key, new RpmLimit(rpm, 1, clock, new ArrayDeque<>()));
        return this;
    }

    /**
     * Enforces {@code tpm} tokens per exact sliding 60 s on {@code key}, counted as this fake reports them: 18 for
     * each plain chat answer (11 prompt + 7 completion).
     */
    public FakeUpstream limitTpm(String key, int tpm, Clock clock) {
        rpmLimits.put(key, new RpmLimit(tpm, PLAIN_CHAT_TOKENS, clock, new ArrayDeque<>()));
        return this;
    }

    /** Calls answered 429 because they were over a limit set with {@link #limitRpm} or {@link #limitTpm}. */
    public int refusedByLimit() {
        return refusedByLimit.get();
    }

    private static final int PLAIN_CHAT_TOKENS = 18;

    /** At most {@code max} per minute, each call costing {@code perCall}. */
    private record RpmLimit(int max, int perCall, Clock clock, Deque<Instant> calls) {
    }

    private boolean overRpm(String key) {
        RpmLimit limit = rpmLimits.get(key);
        if (limit == null) {
            return false;
        }
        synchronized (limit) {
            Instant now = limit.clock().instant();
            while (!limit.calls().isEmpty() && !limit.calls().peekFirst().isAfter(now.minusSeconds(60))) {
                limit.calls().pollFirst();
            }
            if ((limit.calls().size() + 1) * limit.perCall() > limit.max()) {
                return true;
            }
            limit.calls().addLast(now);
            return false;
        }
    }

    private static final java.util.regex.Pattern AZURE_PATH =
            java.util.regex.Pattern.compile("/openai/(deployments/[^/]+/(chat/completions|completions|embeddings|images/.+|audio/.+)|responses)");

    /** Answers as Azure does a request it would not serve; false when it would. */
    private boolean refusedAsAzure(HttpServerRequest request) {
        int status = request.getHeader("api-key") == null || request.getHeader("Authorization") != null ? 401
                : !azureApiVersion.equals(request.getParam("api-version")) ? 400
                : !AZURE_PATH.matcher(request.path()).matches() ? 404 : 0;
        if (status != 0) {
            request.response().setStatusCode(status).putHeader("Content-Type", "application/json")
                    .end("{\"error\":{\"code\":\"" + status + "\",\"message\":\"not as Azure OpenAI takes it\"}}");
        }
        return status != 0;
    }

    /** Connections callers opened since the start (or the last {@link #restore()}). */
    public int connectionsOpened() {
        return connectionsOpened.get();
    }

    /** The most connections open at once since the start (or the last {@link #restore()}). */
    public int mostConnectionsOpen() {
        return mostConnectionsOpen.get();
    }

    /** Requests received over this protocol (HTTP_1_1, HTTP_2). */
    public int requestsOver(HttpVersion protocol) {
        AtomicInteger count = requestsByProtocol.get(protocol);
        return count == null ? 0 : count.get();
    }

    private void handle(HttpServerRequest request) {
        requestsByProtocol.computeIfAbsent(request.version(), v -> new AtomicInteger()).incrementAndGet();
        request.body().onSuccess(buffer -> {
            String auth = request.getHeader("Authorization");
            String key = auth != null && auth.startsWith("Bearer ") ? auth.substring(7)
                    : request.getHeader("x-api-key") != null ? request.getHeader("x-api-key")
                    : request.getHeader("api-key") != null ? request.getHeader("api-key") : "";
            hits.computeIfAbsent(key, k -> new AtomicInteger()).incrementAndGet();
            if (keepRequests) {
                received.add(new Received(key, request.path(), MultiMap.caseInsensitiveMultiMap().addAll(request.headers()),
                        buffer.toString(), buffer.getBytes(), request.query()));
            }
            AtomicInteger toRefuse = streamsToRefuse.get(key);
            if ((refusingStreams.contains(key) || toRefuse != null && toRefuse.getAndDecrement() > 0)
                    && request.version() == HttpVersion.HTTP_2) {
                streamsRefused.incrementAndGet();
                request.response().reset(REFUSED_STREAM);
                return;
            }
            if (azureApiVersion != null && refusedAsAzure(request)) {
                return;
            }
            if (overRpm(key)) {
                refusedByLimit.incrementAndGet();
                request.response().setStatusCode(429).putHeader("Content-Type", "application/json")
                        .end("{\"error\":{\"message\":\"rate limit of the fake provider\",\"type\":\"requests\",\"code\":\"rate_limit_exceeded\"}}");
                return;
            }
            AbusiveAnswer abuse = abusive.get(key);
            if (abuse != null) {
                abuse(request, abuse);
                return;
            }
            Behaviour b = behaviours.getOrDefault(key, OK);
            JsonNode json = json(buffer.toString());
            if (b.status() == 200 && !b.reset() && b.delayMs() == 0 && json.path("stream").asBoolean(false)
                    && speaksTools(request.path()) && asksForTool(json)) {
                streamToolCall(request, json);
                return;
            }
            if (b.status() == 200 && !b.reset() && b.delayMs() == 0 && json.path("stream").asBoolean(false)) {
                stream(request, b, json.path("stream_options").path("include_usage").asBoolean(false)
                        || request.path().endsWith("/responses"));
                return;
            }
            long delay = b == OK ? defaultDelayMs : b.delayMs();
            if (held(() -> respond(request, key, b, json))) {
                return;
            }
            if (delay > 0) {
                vertx.setTimer(delay, t -> respond(request, key, b, json));
            } else {
                respond(request, key, b, json);
            }
        });
    }

    private static JsonNode json(String body) {
        try {
            return JSON.readTree(body);
        } catch (Exception notJson) {
            return JSON.missingNode();
        }
    }

    private void stream(HttpServerRequest request, Behaviour b, boolean includeUsage) {
        var response = request.response().setStatusCode(200).setChunked(true)
                .putHeader("Content-Type", "text/event-stream");
        int count = streamEvents;
        long id = ids.incrementAndGet();
        StreamShape format = request.path().endsWith("/responses") ? StreamShape.RESPONSES
                : request.path().endsWith("/messages") ? StreamShape.MESSAGES
                : request.path().endsWith("/chat/completions") ? StreamShape.CHAT : StreamShape.COMPLETIONS;
        int[] sent = {0};
        boolean[] finished = {false};
        response.closeHandler(v -> {
            if (!finished[0]) {
                streamsCancelled.incrementAndGet();
            }
        });
        vertx.setPeriodic(Math.max(1, streamIntervalMs), timer -> {
            if (response.closed()) {
                vertx.cancelTimer(timer);
                return;
            }
            if (b.cutAfter() >= 0 && sent[0] == b.cutAfter()) {
                vertx.cancelTimer(timer);
                finished[0] = true;
                request.connection().close();
                return;
            }
            if (sent[0] < count) {
                String role = sent[0] == 0 ? "\"role\":\"assistant\"," : "";
                if (format != StreamShape.CHAT) {
                    response.write(format.event(id, sent[0], count));
                    sent[0]++;
                    return;
                }
                response.write("data: {\"id\":\"chatcmpl-stream-" + id + "\",\"object\":\"chat.completion.chunk\","
                        + "\"created\":1700000000,\"model\":\"fake-model\",\"choices\":[{\"index\":0,\"delta\":{" + role
                        + "\"content\":\"tok" + sent[0] + " \"},\"finish_reason\":" + (sent[0] == count - 1 ? "\"stop\"" : "null")
                        + "}]}\n\n");
                sent[0]++;
                return;
            }
            vertx.cancelTimer(timer);
            if (format != StreamShape.CHAT) {
                finished[0] = true;
                streamsCompleted.incrementAndGet();
                response.end(format.last(id, count, includeUsage));
                return;
            }
            if (includeUsage) {
                response.write("data: {\"id\":\"chatcmpl-stream-" + id + "\",\"object\":\"chat.completion.chunk\","
                        + "\"created\":1700000000,\"model\":\"fake-model\",\"choices\":[],"
                        + "\"usage\":{\"prompt_tokens\":11,\"completion_tokens\":" + count + ",\"total_tokens\":" + (11 + count) + "}}\n\n");
            }
            finished[0] = true;
            streamsCompleted.incrementAndGet();
            response.end("data: [DONE]\n\n");
        });
    }

    private void respond(HttpServerRequest request, String key, Behaviour b, JsonNode json) {
        if (request.response().closed()) {
            return;   // a held answer whose caller went away
        }
        if (b.reset()) {
            request.connection().close();
            return;
        }
        boolean speech = b.status() == 200 && b.body() == null && request.path().endsWith("/audio/speech");
        var response = request.response().setStatusCode(b.status())
                .putHeader("Content-Type", speech ? "audio/mpeg" : "application/json")
                .putHeader("X-Upstream-Secret-Header", "upstream-internal");
        if (speech) {
            response.end(io.vertx.core.buffer.Buffer.buffer(SPEECH));
            return;
        }
        if (b.retryAfter() != null) {
            response.putHeader("Retry-After", b.retryAfter());
        }
        boolean anthropic = request.path().contains("/messages");
        String body = b.body() != null ? b.body()
                : b.status() == 200 && speaksTools(request.path()) && asksForTool(json) ? toolCall(request.path(), json)
                : b.status() == 200 && speaksTools(request.path()) && json.has("tools") ? afterTool(request.path(), json)
                : b.status() == 200 ? success(request.path(), key)
                : anthropic ? "{\"type\":\"error\",\"error\":{\"type\":\"" + (b.status() == 529 ? "overloaded_error" : "api_error")
                        + "\",\"message\":\"upstream said " + b.status() + "\"}}"
                : "{\"error\":{\"message\":\"upstream said " + b.status() + "\",\"type\":\"upstream\",\"code\":\"" + b.status() + "\"}}";
        response.end(body);
    }

    private String success(String path, String key) {
        long id = ids.incrementAndGet();
        if (path.endsWith("/responses")) {
            return responseObject(id, "fake answer " + id, true);
        }
        if (path.endsWith("/messages")) {
            return anthropicMessage(id, "fake answer " + id, 7);
        }
        if (path.endsWith("/messages/count_tokens")) {
            return "{\"input_tokens\":" + ANTHROPIC_COUNTED_TOKENS + "}";
        }
        if (path.endsWith("/completions") && !path.endsWith("/chat/completions")) {
            return "{\"id\":\"cmpl-fake-" + id + "\",\"object\":\"text_completion\",\"created\":1700000000,"
                    + "\"model\":\"fake-model\",\"choices\":[{\"text\":\"fake completion " + id + "\",\"index\":0,"
                    + "\"logprobs\":null,\"finish_reason\":\"stop\"}],"
                    + "\"usage\":{\"prompt_tokens\":3,\"completion_tokens\":4,\"total_tokens\":7}}";
        }
        if (path.endsWith("/moderations")) {
            return "{\"id\":\"modr-fake-" + id + "\",\"model\":\"fake-moderation\",\"results\":[{\"flagged\":false,"
                    + "\"categories\":{\"violence\":false},\"category_scores\":{\"violence\":0.01}}]}";
        }
        if (path.endsWith("/images/generations")) {
            return "{\"created\":1700000000,\"data\":[{\"url\":\"https://images.example/fake-" + id + ".png\"}]}";
        }
        if (path.endsWith("/rerank")) {
            return "{\"id\":\"rerank-fake-" + id + "\",\"results\":[{\"index\":1,\"relevance_score\":0.9},"
                    + "{\"index\":0,\"relevance_score\":0.1}],\"usage\":{\"prompt_tokens\":6,\"total_tokens\":6}}";
        }
        if (path.endsWith("/audio/transcriptions") || path.endsWith("/audio/translations")) {
            // echoes what it received, for the test to compare with what the client sent
            Received r = received.stream().filter(x -> x.path().equals(path) && x.key().equals(key))
                    .reduce((first, second) -> second).orElse(null);
            int size = r == null ? -1 : r.bytes().length;
            return "{\"text\":\"transcribed " + size + " bytes by " + key.replace("\"", "") + "\"}";
        }
        if (path.endsWith("/embeddings")) {
            return "{\"object\":\"list\",\"data\":[{\"object\":\"embedding\",\"index\":0,\"embedding\":[0.1,0.2,0.3]}],"
                    + "\"model\":\"fake-embed\",\"usage\":{\"prompt_tokens\":5,\"total_tokens\":5}}";
        }
        return "{\"id\":\"chatcmpl-fake-" + id + "\",\"object\":\"chat.completion\",\"created\":1700000000,"
                + "\"model\":\"fake-model\",\"choices\":[{\"index\":0,\"message\":{\"role\":\"assistant\","
                + "\"content\":\"fake answer " + id + "\"},\"finish_reason\":\"stop\"}],"
                + "\"usage\":{\"prompt_tokens\":11,\"completion_tokens\":7,\"total_tokens\":18}}";
    }

    /** The arguments every fake tool call has. */
    public static final String TOOL_ARGUMENTS = "{\"city\":\"Paris\",\"unit\":\"celsius\"}";

    /**
     * A chat or messages request with {@code tools} whose last turn is not a tool's result: the model asks for its first
     * tool (a round trip's first half).
     */
    private static boolean asksForTool(JsonNode json) {
        if (!json.path("tools").isArray() || json.path("tools").isEmpty()) {
            return false;
        }
        JsonNode last = json.path("messages").path(json.path("messages").size() - 1);
        if ("tool".equals(last.path("role").asText())) {
            return false;
        }
        for (JsonNode block : last.path("content")) {
            if ("tool_result".equals(block.path("type").asText())) {
                return false;
            }
        }
        return true;
    }

    private static boolean speaksTools(String path) {
        return path.endsWith("/chat/completions") || path.endsWith("/messages");
    }

    private static String toolName(JsonNode json) {
        JsonNode tool = json.path("tools").path(0);
        return tool.has("function") ? tool.path("function").path("name").asText() : tool.path("name").asText();
    }

    /** The model asks for the first tool with {@link #TOOL_ARGUMENTS}, as chat or as messages answers it. */
    private String toolCall(String path, JsonNode json) {
        long id = ids.incrementAndGet();
        if (path.endsWith("/messages")) {
            return "{\"id\":\"msg_fake_" + id + "\",\"type\":\"message\",\"role\":\"assistant\",\"model\":\"fake-claude\","
                    + "\"content\":[{\"type\":\"text\",\"text\":\"Let me look.\"},{\"type\":\"tool_use\",\"id\":\"toolu_fake_" + id
                    + "\",\"name\":\"" + toolName(json) + "\",\"input\":" + TOOL_ARGUMENTS + "}],\"stop_reason\":\"tool_use\","
                    + "\"stop_sequence\":null,\"usage\":{\"input_tokens\":30,\"output_tokens\":9}}";
        }
        return "{\"id\":\"chatcmpl-fake-" + id + "\",\"object\":\"chat.completion\",\"created\":1700000000,"
                + "\"model\":\"fake-model\",\"choices\":[{\"index\":0,\"message\":{\"role\":\"assistant\",\"content\":null,"
                + "\"tool_calls\":[{\"id\":\"call_fake_" + id + "\",\"type\":\"function\",\"function\":{\"name\":\""
                + toolName(json) + "\",\"arguments\":" + JSON.valueToTree(TOOL_ARGUMENTS) + "}}]},\"finish_reason\":\"tool_calls\"}],"
                + "\"usage\":{\"prompt_tokens\":30,\"completion_tokens\":9,\"total_tokens\":39}}";
    }

    /** The model answers with the tool's result it was sent: "the tool said <result>". */
    private String afterTool(String path, JsonNode json) {
        JsonNode last = json.path("messages").path(json.path("messages").size() - 1);
        String result = last.path("content").isTextual() ? last.path("content").asText() : "";
        for (JsonNode block : last.path("content")) {
            if ("tool_result".equals(block.path("type").asText())) {
                result = block.path("content").isTextual() ? block.path("content").asText()
                        : block.path("content").path(0).path("text").asText();
            }
        }
        String text = JSON.valueToTree("the tool said " + result).toString();
        long id = ids.incrementAndGet();
        if (path.endsWith("/messages")) {
            return "{\"id\":\"msg_fake_" + id + "\",\"type\":\"message\",\"role\":\"assistant\",\"model\":\"fake-claude\","
                    + "\"content\":[{\"type\":\"text\",\"text\":" + text + "}],\"stop_reason\":\"end_turn\","
                    + "\"stop_sequence\":null,\"usage\":{\"input_tokens\":40,\"output_tokens\":6}}";
        }
        return "{\"id\":\"chatcmpl-fake-" + id + "\",\"object\":\"chat.completion\",\"created\":1700000000,"
                + "\"model\":\"fake-model\",\"choices\":[{\"index\":0,\"message\":{\"role\":\"assistant\",\"content\":"
                + text + "},\"finish_reason\":\"stop\"}],\"usage\":{\"prompt_tokens\":40,\"completion_tokens\":6,\"total_tokens\":46}}";
    }

    /**
     * A streamed tool call, its arguments in pieces of three characters: chat chunks with {@code delta.tool_calls} (and
     * the usage chunk when asked), or Anthropic's {@code input_json_delta} events.
     */
    private void streamToolCall(HttpServerRequest request, JsonNode json) {
        var response = request.response().setStatusCode(200).setChunked(true).putHeader("Content-Type", "text/event-stream");
        long id = ids.incrementAndGet();
        String name = toolName(json);
        List<String> pieces = new java.util.ArrayList<>();
        for (int i = 0; i < TOOL_ARGUMENTS.length(); i += 3) {
            pieces.add(TOOL_ARGUMENTS.substring(i, Math.min(TOOL_ARGUMENTS.length(), i + 3)));
        }
        if (request.path().endsWith("/messages")) {
            response.write("event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"msg_fake_" + id
                    + "\",\"type\":\"message\",\"role\":\"assistant\",\"model\":\"fake-claude\",\"content\":[],"
                    + "\"stop_reason\":null,\"stop_sequence\":null,\"usage\":{\"input_tokens\":30,\"output_tokens\":1}}}\n\n");
            response.write("event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,"
                    + "\"content_block\":{\"type\":\"tool_use\",\"id\":\"toolu_fake_" + id + "\",\"name\":\"" + name
                    + "\",\"input\":{}}}\n\n");
            for (String piece : pieces) {
                response.write("event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,"
                        + "\"delta\":{\"type\":\"input_json_delta\",\"partial_json\":" + JSON.valueToTree(piece) + "}}\n\n");
            }
            response.write("event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":0}\n\n");
            response.write("event: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"tool_use\","
                    + "\"stop_sequence\":null},\"usage\":{\"output_tokens\":9}}\n\n");
            streamsCompleted.incrementAndGet();
            response.end("event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n");
            return;
        }
        String head = "data: {\"id\":\"chatcmpl-stream-" + id + "\",\"object\":\"chat.completion.chunk\",\"created\":1700000000,"
                + "\"model\":\"fake-model\",\"choices\":";
        response.write(head + "[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":null,\"tool_calls\":[{\"index\":0,"
                + "\"id\":\"call_fake_" + id + "\",\"type\":\"function\",\"function\":{\"name\":\"" + name
                + "\",\"arguments\":\"\"}}]},\"finish_reason\":null}]}\n\n");
        for (String piece : pieces) {
            response.write(head + "[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,\"function\":{\"arguments\":"
                    + JSON.valueToTree(piece) + "}}]},\"finish_reason\":null}]}\n\n");
        }
        response.write(head + "[{\"index\":0,\"delta\":{},\"finish_reason\":\"tool_calls\"}]}\n\n");
        if (json.path("stream_options").path("include_usage").asBoolean(false)) {
            response.write(head + "[],\"usage\":{\"prompt_tokens\":30,\"completion_tokens\":9,\"total_tokens\":39}}\n\n");
        }
        streamsCompleted.incrementAndGet();
        response.end("data: [DONE]\n\n");
    }

    /** What /messages/count_tokens answers. */
    public static final int ANTHROPIC_COUNTED_TOKENS = 42;

    /**
     * An Anthropic Messages answer; its usage has 11 input tokens, 2 written to and 3 read from the prompt cache,
     * and {@code outputTokens} (the stream's message_start carries the same input side).
     */
    static String anthropicMessage(long id, String text, int outputTokens) {
        return "{\"id\":\"msg_fake_" + id + "\",\"type\":\"message\",\"role\":\"assistant\",\"model\":\"fake-claude\","
                + "\"content\":[" + (text == null ? "" : "{\"type\":\"text\",\"text\":\"" + text + "\"}") + "],"
                + "\"stop_reason\":" + (text == null ? "null" : "\"end_turn\"") + ",\"stop_sequence\":null,"
                + "\"usage\":{\"input_tokens\":11,\"cache_creation_input_tokens\":2,\"cache_read_input_tokens\":3,"
                + "\"output_tokens\":" + outputTokens + "}}";
    }

    /** A whole Responses API object (what the SDKs expect), with its usage when {@code withUsage}. */
    static String responseObject(long id, String text, boolean withUsage) {
        return "{\"id\":\"resp_fake_" + id + "\",\"object\":\"response\",\"created_at\":1700000000,"
                + "\"status\":\"completed\",\"error\":null,\"incomplete_details\":null,\"instructions\":null,"
                + "\"metadata\":{},\"model\":\"fake-model\",\"output\":[{\"type\":\"message\",\"id\":\"msg_" + id + "\","
                + "\"status\":\"completed\",\"role\":\"assistant\",\"content\":[{\"type\":\"output_text\","
                + "\"text\":\"" + text + "\",\"annotations\":[]}]}],\"parallel_tool_calls\":true,\"temperature\":1.0,"
                + "\"tool_choice\":\"auto\",\"tools\":[],\"top_p\":1.0"
                + (withUsage ? ",\"usage\":{\"input_tokens\":11,\"input_tokens_details\":{\"cached_tokens\":0},"
                        + "\"output_tokens\":7,\"output_tokens_details\":{\"reasoning_tokens\":0},\"total_tokens\":18}" : "")
                + "}";
    }

    /** How a stream reads, by the path it was asked on. */
    private enum StreamShape {
        CHAT,
        /** Legacy completions: text_completion chunks, then [DONE]. */
        COMPLETIONS {
            @Override
            String event(long id, int n, int count) {
                return "data: {\"id\":\"cmpl-stream-" + id + "\",\"object\":\"text_completion\",\"created\":1700000000,"
                        + "\"model\":\"fake-model\",\"choices\":[{\"text\":\"tok" + n + " \",\"index\":0,\"logprobs\":null,"
                        + "\"finish_reason\":" + (n == count - 1 ? "\"stop\"" : "null") + "}]}\n\n";
            }

            @Override
            String last(long id, int count, boolean usage) {
                return (usage ? "data: {\"id\":\"cmpl-stream-" + id + "\",\"object\":\"text_completion\",\"created\":1700000000,"
                        + "\"model\":\"fake-model\",\"choices\":[],\"usage\":{\"prompt_tokens\":3,\"completion_tokens\":" + count
                        + ",\"total_tokens\":" + (3 + count) + "}}\n\n" : "") + "data: [DONE]\n\n";
            }
        },
        /** Responses: typed events, output_text deltas, ends with response.completed carrying the usage. */
        RESPONSES {
            @Override
            String event(long id, int n, int count) {
                String created = n == 0 ? "event: response.created\ndata: {\"type\":\"response.created\",\"sequence_number\":0,"
                        + "\"response\":" + responseObject(id, "", false).replace("\"status\":\"completed\"", "\"status\":\"in_progress\"")
                        + "}\n\n" : "";
                return created + "event: response.output_text.delta\ndata: {\"type\":\"response.output_text.delta\","
                        + "\"sequence_number\":" + (n + 1) + ",\"item_id\":\"msg_" + id + "\",\"output_index\":0,"
                        + "\"content_index\":0,\"delta\":\"tok" + n + " \",\"logprobs\":[]}\n\n";
            }

            @Override
            String last(long id, int count, boolean usage) {
                StringBuilder text = new StringBuilder();
                for (int i = 0; i < count; i++) {
                    text.append("tok").append(i).append(' ');
                }
                return "event: response.completed\ndata: {\"type\":\"response.completed\",\"sequence_number\":" + (count + 1)
                        + ",\"response\":" + responseObject(id, text.toString(), true).replace("\"output_tokens\":7", "\"output_tokens\":" + count)
                        + "}\n\n";
            }
        },

        /** Anthropic's Messages: message_start, a text block of deltas (and a ping), message_delta with the usage, message_stop. */
        MESSAGES {
            @Override
            String event(long id, int n, int count) {
                String start = n > 0 ? "" : "event: message_start\ndata: {\"type\":\"message_start\",\"message\":"
                        + anthropicMessage(id, null, 1) + "}\n\n"
                        + "event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,"
                        + "\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\n"
                        + "event: ping\ndata: {\"type\": \"ping\"}\n\n";
                return start + "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,"
                        + "\"delta\":{\"type\":\"text_delta\",\"text\":\"tok" + n + " \"}}\n\n";
            }

            @Override
            String last(long id, int count, boolean usage) {
                return "event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":0}\n\n"
                        + "event: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"end_turn\","
                        + "\"stop_sequence\":null},\"usage\":{\"output_tokens\":" + count + "}}\n\n"
                        + "event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n";
            }
        };

        String event(long id, int n, int count) {
            throw new UnsupportedOperationException();
        }

        String last(long id, int count, boolean usage) {
            throw new UnsupportedOperationException();
        }
    }

    private static byte[] speech() {
        byte[] bytes = new byte[3000];
        for (int i = 0; i < bytes.length; i++) {
            bytes[i] = (byte) (i * 7);
        }
        return bytes;
    }

    @Override
    public void close() {
        vertx.close().toCompletionStage().toCompletableFuture().join();
    }
}
