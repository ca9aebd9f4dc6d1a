package dev.keypool.camel.http;

import java.util.Map;
import java.util.concurrent.Executor;

import dev.keypool.camel.pipeline.BoundedAnswers;
import dev.keypool.camel.pipeline.Exchanges;
import dev.keypool.gateway.SplicedFile;
import io.vertx.core.AsyncResult;
import io.vertx.core.Handler;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClientRequest;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.http.StreamResetException;
import io.vertx.ext.web.client.HttpRequest;
import io.vertx.ext.web.client.HttpResponse;
import io.vertx.ext.web.client.impl.ClientPhase;
import io.vertx.ext.web.client.impl.HttpContext;
import io.vertx.ext.web.client.impl.WebClientInternal;
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
 * ({@code executeBlocking}), it would wait for a worker while every worker waits for an answer (platform-http holds
 * one per request). So the completion is handed to {@code answers}: a virtual thread per answer on Java 21+, Camel's
 * cached pool (a new thread whenever none is idle) on platform threads.
 *
 * <p>A client that hangs up meanwhile ({@link ClientHangup}) cancels the call: its provider connection is reset
 * and the attempt fails at once, as a blocked call's socket did when its thread was interrupted.
 *
 * <p>An answer over {@code maxAnswerBytes} fails the call ({@link BoundedAnswers}).
 */
public final class UpstreamHttpComponent extends VertxHttpComponent {

    private static final PropertyConfigurer COMPONENT_CONFIGURER = new VertxHttpComponentConfigurer();
    private static final PropertyConfigurer ENDPOINT_CONFIGURER = new VertxHttpEndpointConfigurer();

    private final Executor answers;
    private final long maxAnswerBytes;

    public UpstreamHttpComponent(Executor answers, long maxAnswerBytes) {
        this.answers = answers;
        this.maxAnswerBytes = maxAnswerBytes;
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
        VertxHttpEndpoint configured = (VertxHttpEndpoint) super.createEndpoint(uri, remaining, parameters);
        configured.getConfiguration().setVertxHttpBinding(new BoundedAnswers(maxAnswerBytes));
        return new UpstreamEndpoint(uri, this, configured.getConfiguration(), answers);
    }

    private static final class UpstreamEndpoint extends VertxHttpEndpoint {
        private final Executor answers;

        UpstreamEndpoint(String uri, VertxHttpComponent component, VertxHttpConfiguration configuration, Executor answers) {
            super(uri, component, configuration);
            this.answers = answers;
        }

        @Override
        protected void doStart() throws Exception {
            super.doStart();
            ((WebClientInternal) getWebClient()).addInterceptor(UpstreamCall::intercept);
            ((WebClientInternal) getWebClient()).addInterceptor(BoundedAnswers::closeOnOverflow);
        }

        Vertx vertx() {
            return getVertx();
        }

        @Override
        public Producer createProducer() {
            return new UpstreamProducer(this, answers);
        }
    }

    private static final class UpstreamProducer extends VertxHttpProducer {
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
         * vertx-http hands every answer to {@code vertx.executeBlocking}, the Vert.x worker pool, where platform-http
         * holds a worker for each request until its route is done: with platform threads, once as many requests as
         * workers were waiting for their provider, no answer could be handled again and the gateway never answered.
         */
        @Override
        public boolean process(Exchange exchange, AsyncCallback callback) {
            ClientHangup hangup = exchange.getProperty(Exchanges.CLIENT_GONE, ClientHangup.class);
            UpstreamCall call = new UpstreamCall();
            if (hangup != null) {
                hangup.whileWaiting(call::cancel);
            }
            UpstreamCall.STARTING.set(call);
            try {
                HttpRequest<Buffer> request = binding.prepareHttpRequest(getEndpoint(), exchange);
                Handler<AsyncResult<HttpResponse<Buffer>>> answered = response -> answers.execute(() -> {
                    answered(hangup);
                    try {
                        binding.handleResponse(getEndpoint(), exchange, response);
                    } catch (Exception e) {
                        exchange.setException(e);
                    } finally {
                        callback.done(false);
                    }
                });
                Object body = exchange.getMessage().getBody();
                if (body == null) {
                    request.send(answered);
                } else if (body instanceof SplicedFile file) {
                    // an upload on disk: read from the file as the provider takes it, with its exact length (not chunked)
                    SplicedFileStream stream = SplicedFileStream.open(((UpstreamEndpoint) getEndpoint()).vertx(), file);
                    request.putHeader(HttpHeaders.CONTENT_LENGTH.toString(), String.valueOf(file.length()));
                    request.sendStream(stream, response -> {
                        stream.close();
                        answered.handle(response);
                    });
                } else {
                    request.sendBuffer(body instanceof byte[] bytes ? Buffer.buffer(bytes)
                            : exchange.getMessage().getMandatoryBody(Buffer.class), answered);
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
