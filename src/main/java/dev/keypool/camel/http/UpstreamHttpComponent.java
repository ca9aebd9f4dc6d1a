package dev.keypool.camel.http;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executor;

import dev.keypool.camel.pipeline.BoundedAnswers;
import dev.keypool.camel.pipeline.Exchanges;
import dev.keypool.config.ProviderConfig.Http2;
import dev.keypool.gateway.SplicedFile;
import io.netty.handler.codec.http.QueryStringEncoder;
import io.vertx.core.AsyncResult;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Handler;
import io.vertx.core.MultiMap;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClientRequest;
import io.vertx.core.http.HttpClientResponse;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.http.RequestOptions;
import io.vertx.core.http.StreamResetException;
import io.vertx.core.impl.ContextInternal;
import io.vertx.ext.web.client.HttpRequest;
import io.vertx.ext.web.client.HttpResponse;
import io.vertx.ext.web.client.WebClient;
import io.vertx.ext.web.client.impl.ClientPhase;
import io.vertx.ext.web.client.impl.HttpContext;
import io.vertx.ext.web.client.impl.HttpRequestImpl;
import io.vertx.ext.web.client.impl.HttpResponseImpl;
import org.apache.camel.AsyncCallback;
import org.apache.camel.Endpoint;
import org.apache.camel.Exchange;
import org.apache.camel.Producer;
import org.apache.camel.component.vertx.http.VertxHttpComponent;
import org.apache.camel.component.vertx.http.VertxHttpBinding;
import org.apache.camel.component.vertx.http.VertxHttpComponentConfigurer;
import org.apache.camel.component.vertx.http.VertxHttpConfiguration;
import org.apache.camel.component.vertx.http.VertxHttpEndpoint;
import org.apache.camel.component.vertx.http.VertxHttpEndpointConfigurer;
import org.apache.camel.component.vertx.http.VertxHttpProducer;
import org.apache.camel.spi.PropertyConfigurer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * camel-vertx-http as routes/upstream.camel.yaml calls the provider (scheme {@code vertx-http}): the call holds no
 * thread while the provider thinks, and its answer is handled on a request thread, as if the call had blocked.
 *
 * <p>The rest of the request runs after the answer: the redelivery backoff of upstream-errors (a sleep), Redis calls
 * of the shared state, the stream of the next attempt. On the Vert.x event loop that read the answer each of these
 * would stop every other connection of that loop; on the Vert.x worker pool, where plain vertx-http puts it
 * ({@code executeBlocking}), it would wait for a worker while every worker waits for an answer (platform-http's own
 * consumer holds one per request until its route is done). So the completion is handed to {@code answers}: a virtual
 * thread per answer on Java 21+, Camel's cached pool (a new thread whenever none is idle) on platform threads. That
 * thread runs the route to its end and writes the client's answer ({@link GatewayHttpEngine}).
 *
 * <p>Except where nothing that follows can block ({@code successOnEventLoop}: no state shared through Redis, whose calls
 * wait for their answer): a 2xx answer to a request whose route's end only writes its answer
 * ({@link Exchanges#ANSWERED_AT_ROUTE_END}) is handled on the event loop that read it, through the rest of the route
 * (the success recorded, the answer translated, cached, logged) to the write of the client's answer, on the same event
 * loop when the client's connection is on it; a stream's, to the relay's write of its first event, after which the
 * relay takes a thread of {@code answers} for the rest. A failed call still goes to {@code answers}: its retries sleep,
 * pick keys and walk on. Each hand-off to another thread wakes a parked one, slowly after the provider's 50 ms on this
 * machine (bench/README.md, "Where a request's time goes").
 *
 * <p>A client that hangs up meanwhile ({@link ClientHangup}) cancels the call: its provider connection is reset
 * and the attempt fails at once, as a blocked call's socket did when its thread was interrupted.
 *
 * <p>An answer over {@code maxAnswerBytes} fails the call ({@link WholeAnswer}; an upload's, sent through WebClient,
 * {@link BoundedAnswers}).
 *
 * <p>The endpoints do not make a client each: the call goes out on the {@link UpstreamClients} client of its transport,
 * given by two options of the endpoint URI that the route sets from the channel: {@code http2} ({@code auto} or
 * {@code off}) and {@code caFile} (empty: none), and of the event loop that read its request. So every endpoint of a
 * provider (its paths, its timeouts) shares one pool of connections on each loop, and over HTTP/2 a few connections
 * carry all its calls.
 *
 * <p>A call takes its connection from the pool within {@link #poolWaitMs}: over HTTP/1.1 the channel's connect timeout
 * (a call waits only for a connection of its own to open), over HTTP/2 also the wait for a free stream
 * ({@code keypool.http2-stream-wait-ms}), which a burst spends queued while the provider's connections open or carry
 * their 100 calls each.
 */
public final class UpstreamHttpComponent extends VertxHttpComponent {

    private static final PropertyConfigurer COMPONENT_CONFIGURER = new VertxHttpComponentConfigurer();
    private static final PropertyConfigurer ENDPOINT_CONFIGURER = new VertxHttpEndpointConfigurer();

    /**
     * How WebClient makes a request's options from what vertx-http's binding prepared (its URI, query, headers, timeouts,
     * TLS), package-private in HttpRequestImpl: a call read without WebClient is sent as WebClient would send it.
     */
    private static final MethodHandle REQUEST_OPTIONS = requestOptions();

    /** The largest successful answer handled on the event loop that read it (a chat answer is a few KB). */
    static final int EVENT_LOOP_ANSWER_BYTES = 64 * 1024;

    private final Executor answers;
    private final boolean successOnEventLoop;
    private final long maxAnswerBytes;
    private final int http2Connections;
    private final long http2StreamWaitMs;
    private volatile UpstreamClients clients;

    /**
     * @param http2Connections  HTTP/2 connections per provider at most (HTTP/1.1 ones: the web client options' pool
     *                          size)
     * @param http2StreamWaitMs how long a call to an HTTP/2 provider may wait for a free stream, within its channel's
     *                          timeout
     * @param successOnEventLoop whether nothing the rest of a request does after a 2xx answer blocks, so that the event
     *                          loop that read it may run it
     */
    public UpstreamHttpComponent(Executor answers, boolean successOnEventLoop, long maxAnswerBytes, int http2Connections,
                                 long http2StreamWaitMs) {
        this.answers = answers;
        this.successOnEventLoop = successOnEventLoop;
        this.maxAnswerBytes = maxAnswerBytes;
        this.http2Connections = http2Connections;
        this.http2StreamWaitMs = http2StreamWaitMs;
    }

    private static MethodHandle requestOptions() {
        try {
            return MethodHandles.privateLookupIn(HttpRequestImpl.class, MethodHandles.lookup())
                    .findVirtual(HttpRequestImpl.class, "buildRequestOptions", MethodType.methodType(RequestOptions.class))
                    .asType(MethodType.methodType(RequestOptions.class, HttpRequest.class));
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("vertx-web-client without HttpRequestImpl.buildRequestOptions", e);
        }
    }

    /** The options WebClient would send the prepared request with. */
    static RequestOptions requestOptions(HttpRequest<Buffer> prepared) throws Exception {
        try {
            return (RequestOptions) REQUEST_OPTIONS.invokeExact(prepared);
        } catch (Exception | Error e) {
            throw e;
        } catch (Throwable e) {
            throw new IllegalStateException(e);
        }
    }

    /** vertx-http's generated configurers, which Camel finds by the component's class name otherwise. */
    @Override
    public PropertyConfigurer getComponentPropertyConfigurer() {
        return COMPONENT_CONFIGURER;
    }

    @Override
    public PropertyConfigurer getEndpointPropertyConfigurer() {
        return ENDPOINT_CONFIGURER;
    }

    @Override
    protected Endpoint createEndpoint(String uri, String remaining, Map<String, Object> parameters) throws Exception {
        Object http2Option = parameters.remove("http2");
        Http2 http2 = http2Option == null || http2Option.toString().isBlank() ? Http2.AUTO
                : Http2.named(http2Option.toString()).orElseThrow(() -> new IllegalArgumentException(
                        "http2 must be one of " + Http2.names() + ", not " + http2Option));
        Object caFile = parameters.remove("caFile");
        boolean stream = Boolean.parseBoolean(String.valueOf(parameters.remove("stream")));
        UpstreamClients.Transport transport = new UpstreamClients.Transport(remaining.regionMatches(true, 0, "https:", 0, 6),
                http2, caFile == null || caFile.toString().isBlank() ? null : Path.of(caFile.toString()));
        VertxHttpEndpoint configured = (VertxHttpEndpoint) super.createEndpoint(uri, remaining, parameters);
        configured.getConfiguration().setVertxHttpBinding(new BoundedAnswers(maxAnswerBytes));
        return new UpstreamEndpoint(uri, this, configured.getConfiguration(), answers, transport, stream);
    }

    /** The clients, made with the component's Vert.x once the first endpoint starts. */
    private UpstreamClients clients() {
        UpstreamClients made = clients;
        if (made == null) {
            synchronized (this) {
                if (clients == null) {
                    clients = new UpstreamClients(getVertx(), getWebClientOptions(), ServerEventLoops.of(getCamelContext()),
                            http2Connections, http2StreamWaitMs);
                }
                made = clients;
            }
        }
        return made;
    }

    @Override
    protected void doStop() throws Exception {
        UpstreamClients made = clients;
        clients = null;
        if (made != null) {
            made.close();
        }
        super.doStop();
    }

    /**
     * How long a call may wait for its connection from the pool (Vert.x's per-request "connect timeout", which bounds
     * the whole wait for a lease: for a connection of its own to open, or in the pool's queue for a free stream). Over
     * HTTP/1.1 that is the channel's connect timeout: each call has a connection of its own. Over HTTP/2 a call may
     * also wait while every connection the provider may have is busy with its 100 calls or still opening: up to
     * {@code keypool.http2-stream-wait-ms}, within the channel's timeout, never less than its connect timeout. The
     * opening itself is bounded apart, on the client ({@link UpstreamClients}): a connection is shared by every call.
     */
    long poolWaitMs(UpstreamClients.Transport transport, VertxHttpConfiguration configuration) {
        long connect = configuration.getConnectTimeout();
        if (!transport.offersHttp2()) {
            return connect;
        }
        long timeout = configuration.getTimeout();
        long streamWait = timeout > 0 ? Math.min(http2StreamWaitMs, timeout) : http2StreamWaitMs;
        return Math.max(connect, streamWait);
    }

    /** The interceptor every provider client carries: a call cancelled before it went out fails here. */
    static void intercept(HttpContext<?> context) {
        UpstreamCall.intercept(context);
    }

    /**
     * One provider URL with its options; {@code stream} (option {@code stream=true}): the call is answered at the head
     * of a 2xx answer, its body an {@link UpstreamStream} read as it arrives.
     */
    private final class UpstreamEndpoint extends VertxHttpEndpoint {
        private final Executor answers;
        private final UpstreamClients.Transport transport;
        private final boolean stream;

        UpstreamEndpoint(String uri, VertxHttpComponent component, VertxHttpConfiguration configuration, Executor answers,
                         UpstreamClients.Transport transport, boolean stream) {
            super(uri, component, configuration);
            this.answers = answers;
            this.transport = transport;
            this.stream = stream;
        }

        /** Not vertx-http's: that would make a client, and a pool of connections, for this endpoint alone. */
        @Override
        protected void doStart() {
            client();
        }

        /** The shared clients stay open for the other endpoints. */
        @Override
        protected void doStop() {
            // nothing of its own to close
        }

        /**
         * The transport's shared client, taken when first asked for, not only at the endpoint's start: Camel never
         * starts an endpoint made while it finishes its own start (a request's {@code toD} in the moment between its
         * routes started and the context started), and such an endpoint served the gateway's every request after.
         */
        UpstreamClients.Client client() {
            // asked for each call: over HTTP/1.1 the client depends on the event loop the call is sent from
            return ((UpstreamHttpComponent) getComponent()).clients().client(transport);
        }

        @Override
        protected WebClient getWebClient() {
            return client().web();
        }

        Vertx vertx() {
            return getVertx();
        }

        @Override
        public Producer createProducer() {
            return new UpstreamProducer(this, answers);
        }
    }

    private final class UpstreamProducer extends VertxHttpProducer {
        private final Executor answers;
        private final VertxHttpBinding binding;

        UpstreamProducer(VertxHttpEndpoint endpoint, Executor answers) {
            super(endpoint);
            this.answers = answers;
            this.binding = endpoint.getConfiguration().getVertxHttpBinding();
        }

        /**
         * vertx-http's own, for the bodies KeyPool sends (bytes, or an upload's file), but its answer goes to
         * {@code answers} directly.
         * vertx-http hands every answer to {@code vertx.executeBlocking}, the Vert.x worker pool, where platform-http's
         * own consumer holds a worker for each request until its route is done: with platform threads, once as many
         * requests as workers were waiting for their provider, no answer could be handled again and the gateway never
         * answered.
         */
        @Override
        public boolean process(Exchange exchange, AsyncCallback callback) {
            // the call goes out from the context of the loop whose client carries it, so that its connection is that
            // loop's and its answer is read there: the loop that read the request, when it is sent from elsewhere
            ContextInternal from = clients().sendingContext(((UpstreamEndpoint) getEndpoint()).transport,
                    exchange.getProperty(Exchanges.REQUEST_EVENT_LOOP, Context.class));
            if (from.nettyEventLoop().inEventLoop()) {
                return send(exchange, callback);
            }
            boolean[] sync = new boolean[1];
            from.dispatch(() -> sync[0] = send(exchange, callback));
            return sync[0];
        }

        private boolean send(Exchange exchange, AsyncCallback callback) {
            ClientHangup hangup = exchange.getProperty(Exchanges.CLIENT_GONE, ClientHangup.class);
            UpstreamCall call = new UpstreamCall();
            if (hangup != null) {
                hangup.whileWaiting(call::cancel);
            }
            if (((UpstreamEndpoint) getEndpoint()).stream) {
                return stream(exchange, callback, hangup, call);
            }
            UpstreamCall.STARTING.set(call);
            try {
                UpstreamEndpoint endpoint = (UpstreamEndpoint) getEndpoint();
                HttpRequest<Buffer> request = binding.prepareHttpRequest(endpoint, exchange)
                        // per call: the shared client's options cannot carry each channel's
                        .connectTimeout(poolWaitMs(endpoint.transport, endpoint.getConfiguration()));
                Handler<AsyncResult<HttpResponse<Buffer>>> answered = response -> {
                    Runnable rest = () -> {
                        answered(hangup);
                        try {
                            binding.handleResponse(getEndpoint(), exchange, response);
                        } catch (Exception e) {
                            exchange.setException(e);
                        } finally {
                            callback.done(false);
                        }
                    };
                    if (goesOnHere(exchange) && served(response)) {
                        rest.run();
                    } else {
                        answers.execute(rest);
                    }
                };
                Object body = exchange.getMessage().getBody();
                if (body == null) {
                    sendDirectly(endpoint, request, null, call, answered);
                } else if (body instanceof SplicedFile file) {
                    // an upload on disk: read from the file as the provider takes it, with its exact length (not chunked)
                    SplicedFileStream stream = SplicedFileStream.open(endpoint.vertx(), file);
                    request.putHeader(HttpHeaders.CONTENT_LENGTH.toString(), String.valueOf(file.length()));
                    request.sendStream(stream, response -> {
                        stream.close();
                        answered.handle(response);
                    });
                } else {
                    sendDirectly(endpoint, request, body instanceof byte[] bytes ? Buffer.buffer(bytes)
                            : exchange.getMessage().getMandatoryBody(Buffer.class), call, answered);
                }
                return false;
            } catch (Exception e) {
                answered(hangup);
                exchange.setException(e);
                callback.done(true);
                return true;
            } finally {
                UpstreamCall.STARTING.remove();
            }
        }

        /**
         * The request WebClient would send, sent on the HTTP client it wraps, its answer read whole within the answers'
         * bound ({@link WholeAnswer}) and handed to {@code answered} as WebClient's. WebClient's own way runs each call
         * through its interceptors at every phase, a pipe into the body codec, and a task of its own on the event loop
         * to hand the answer over: after the provider's 50 ms each runs on a CPU that sat idle, 47 µs from the answer's
         * head to its handler (bench/README.md, "The window after the provider answers"). What the interceptors do for
         * an upload's call, here: a call whose client hung up before it went out fails as a reset one, and an answer
         * over the bound resets its call unless it ended.
         */
        private void sendDirectly(UpstreamEndpoint endpoint, HttpRequest<Buffer> prepared, Buffer body, UpstreamCall call,
                                  Handler<AsyncResult<HttpResponse<Buffer>>> answered) throws Exception {
            RequestOptions options = requestOptions(prepared);
            // WebClient follows redirects itself, with the HTTP client's handler; the client does the same when asked
            options.setFollowRedirects(prepared.followRedirects());
            endpoint.client().http().request(options).onComplete(created -> {
                if (created.failed()) {
                    answered.handle(Future.failedFuture(created.cause()));
                    return;
                }
                HttpClientRequest request = created.result();
                if (!call.sent(request)) {
                    request.reset();
                    answered.handle(Future.failedFuture(new StreamResetException(0)));
                    return;
                }
                (body == null ? request.send() : request.send(body)).onComplete(head -> {
                    if (head.failed()) {
                        answered.handle(Future.failedFuture(head.cause()));
                        return;
                    }
                    HttpClientResponse response = head.result();
                    WholeAnswer.read(request, response, maxAnswerBytes).onComplete(read -> answered.handle(read.failed()
                            ? Future.failedFuture(read.cause())
                            : Future.succeededFuture(new HttpResponseImpl<>(response.version(), response.statusCode(),
                                    response.statusMessage(), response.headers(), response.trailers(),
                                    response.cookies(), read.result(), List.of()))));
                });
            });
        }

        /**
         * A stream call: sent on the transport's HTTP client (the request vertx-http's binding prepares, its URL, query,
         * headers and timeouts), answered once a 2xx head and the first bytes of its body have arrived, its body read by
         * the relay as it comes. Any other status is read whole (bounded as any answer) and fails the call as
         * vertx-http's would. The answer goes on on the event loop that received it where a success goes on there
         * ({@code successOnEventLoop}, the client's answer written at the route's end), else on an answer thread.
         */
        private boolean stream(Exchange exchange, AsyncCallback callback, ClientHangup hangup, UpstreamCall call) {
            UpstreamEndpoint endpoint = (UpstreamEndpoint) getEndpoint();
            try {
                HttpRequest<Buffer> prepared = binding.prepareHttpRequest(endpoint, exchange);
                long idleTimeout = endpoint.getConfiguration().getTimeout();
                RequestOptions options = new RequestOptions()
                        .setMethod(prepared.method())
                        .setHost(prepared.host())
                        .setPort(prepared.port())
                        .setSsl(prepared.ssl() != null ? prepared.ssl() : endpoint.transport.tls())
                        .setURI(withQuery(prepared.uri(), prepared.queryParams()))
                        .setHeaders(prepared.headers())
                        .setConnectTimeout(poolWaitMs(endpoint.transport, endpoint.getConfiguration()))
                        .setIdleTimeout(idleTimeout);
                Buffer body = Buffer.buffer(exchange.getMessage().getMandatoryBody(byte[].class));
                Promise<UpstreamStream> answer = Promise.promise();
                answer.future().onComplete(done -> {
                    Runnable rest = () -> {
                        answered(hangup);
                        if (done.succeeded()) {
                            exchange.getMessage().setHeader(Exchange.HTTP_RESPONSE_CODE, 200);
                            exchange.getMessage().setBody(done.result());
                        } else {
                            exchange.setException(done.cause());
                        }
                        callback.done(false);
                    };
                    // the relay writes the first event here and takes its own thread for the rest (StreamRelay)
                    if (done.succeeded() && goesOnHere(exchange)) {
                        rest.run();
                    } else {
                        answers.execute(rest);
                    }
                });
                endpoint.client().http().request(options).onComplete(created -> {
                    if (created.failed()) {
                        answer.fail(created.cause());
                        return;
                    }
                    HttpClientRequest request = created.result();
                    if (!call.sent(request)) {
                        request.reset();
                        answer.fail(new StreamResetException(0));
                        return;
                    }
                    request.send(body).onComplete(head -> {
                        if (head.failed()) {
                            answer.tryFail(head.cause());
                        } else if (head.result().statusCode() / 100 == 2) {
                            // answered once the first bytes are here: the relay then has its first event at hand
                            UpstreamStream stream = new UpstreamStream(request, head.result(), idleTimeout);
                            stream.whenMoreArrives(() -> answer.tryComplete(stream));
                        } else {
                            String url = (Boolean.TRUE.equals(prepared.ssl()) ? "https://" : "http://")
                                    + prepared.host() + ":" + prepared.port() + prepared.uri();
                            RefusedAnswer.read(request, head.result(), url, maxAnswerBytes, answer);
                        }
                    });
                });
                return false;
            } catch (Exception e) {
                answered(hangup);
                exchange.setException(e);
                callback.done(true);
                return true;
            }
        }

        private static String withQuery(String path, MultiMap query) {
            if (query.isEmpty()) {
                return path;
            }
            QueryStringEncoder encoder = new QueryStringEncoder(path);
            query.forEach(encoder::addParam);
            return encoder.toString();
        }

        /**
         * Whether a success of this call goes on on the event loop that received it: nothing after it blocks
         * ({@code successOnEventLoop}) and nothing waits for the request but its answer's write.
         */
        private boolean goesOnHere(Exchange exchange) {
            return successOnEventLoop && Boolean.TRUE.equals(exchange.getProperty(Exchanges.ANSWERED_AT_ROUTE_END));
        }

        /**
         * A 2xx answer of at most {@link #EVENT_LOOP_ANSWER_BYTES}. A larger one goes to an answer thread: translating,
         * caching and logging it takes time in proportion to its size, and on the event loop every other connection of
         * that loop would wait for it.
         */
        private static boolean served(AsyncResult<HttpResponse<Buffer>> response) {
            if (!response.succeeded() || response.result().statusCode() / 100 != 2) {
                return false;
            }
            Buffer body = response.result().body();
            return body == null || body.length() <= EVENT_LOOP_ANSWER_BYTES;
        }

        private static void answered(ClientHangup hangup) {
            if (hangup != null) {
                hangup.whileRunningOn(Thread.currentThread());
            }
        }
    }

    /**
     * The provider request of one call, once Vert.x has it: a WebClient interceptor picks the call up when the
     * request is prepared (on the calling thread, inside {@code send}) and hands it the request when it is sent.
     */
    private static final class UpstreamCall {
        private static final Logger LOG = LoggerFactory.getLogger(UpstreamHttpComponent.class);
        static final ThreadLocal<UpstreamCall> STARTING = new ThreadLocal<>();
        private static final String KEY = UpstreamCall.class.getName();

        private volatile HttpClientRequest request;
        private volatile boolean cancelled;

        static void intercept(HttpContext<?> context) {
            if (context.phase() == ClientPhase.PREPARE_REQUEST) {
                UpstreamCall call = STARTING.get();
                if (call != null) {
                    context.set(KEY, call);
                }
            } else if (context.phase() == ClientPhase.SEND_REQUEST) {
                UpstreamCall call = context.get(KEY);
                if (call != null && !call.sent(context.clientRequest())) {
                    // the client hung up before the call went out: it fails here, as a reset call does (a reset
                    // now, with the send going on, left Vert.x ending a request it had dropped: an NPE logged on
                    // the event loop, seen when wrk closed its connections)
                    context.fail(new StreamResetException(0));
                    return;
                }
            }
            context.next();
        }

        /** Whether the call may go out: false when its client hung up before. */
        boolean sent(HttpClientRequest sent) {
            request = sent;
            // the reset of a cancelled call fails its answer, which the attempt hears; without a handler of its
            // own Vert.x would also log it as an ERROR ("Stream reset: 0") for every client that hangs up
            sent.exceptionHandler(this::failedToSend);
            return !cancelled;
        }

        private void failedToSend(Throwable failure) {
            if (!cancelled) {
                LOG.debug("Provider request failed while being sent: {}", failure.toString());
            }
        }

        void cancel() {
            cancelled = true;
            HttpClientRequest sent = request;
            if (sent != null) {
                sent.reset();
            }
        }
    }
}
