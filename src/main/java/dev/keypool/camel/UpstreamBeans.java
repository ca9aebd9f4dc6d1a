package dev.keypool.camel;

import java.util.concurrent.Executor;

import dev.keypool.camel.http.LeaveEventLoop;
import dev.keypool.camel.http.RememberedHeaderFilter;
import dev.keypool.camel.http.UpstreamHttpComponent;
import dev.keypool.camel.routes.ChannelBreakerFactory;
import io.vertx.ext.web.client.WebClientOptions;
import org.apache.camel.CamelContext;
import org.apache.camel.component.vertx.http.VertxHttpHeaderFilterStrategy;
import org.apache.camel.spi.ProcessorFactory;

/** The provider calls (vertx-http, plain and streamed) and the channel routes' breaker step. */
final class UpstreamBeans {

    private UpstreamBeans() {
    }

    /**
     * The threads a request goes on with where it may wait: the rest of a provider's answer that is not handled on the
     * event loop that read it, and the steps {@link LeaveEventLoop} guards.
     */
    static final String ANSWER_THREADS = "upstreamAnswers";

    /** @param sharedState whether state is shared through Redis, whose calls wait for their answer */
    static void bind(CamelContext context, boolean sharedState) {
        int connectionsPerProvider = Wiring.intSetting(context, "camel.component.http.connections-per-route");
        Executor answers = context.getExecutorServiceManager().newCachedThreadPool(context, "UpstreamAnswers");
        context.getRegistry().bind(ANSWER_THREADS, Executor.class, answers);
        // ahead of the walk's wait for quota room (routes/gateway.camel.yaml)
        context.getRegistry().bind("offEventLoop", new LeaveEventLoop(answers, () -> true));
        // the provider calls that are not streams (routes/upstream.camel.yaml), and the channel routes' circuitBreaker
        // that waits for them without holding a thread
        context.addComponent("vertx-http", upstreamHttp(answers, !sharedState, connectionsPerProvider,
                Wiring.intSetting(context, "keypool.http2-connections-per-provider"),
                Wiring.longSetting(context, "keypool.http2-stream-wait-ms"),
                Wiring.longSetting(context, "keypool.max-answer-bytes")));
        context.getCamelContextExtension().addContextPlugin(ProcessorFactory.class, new ChannelBreakerFactory());
    }

    /**
     * vertx-http with one pool per provider of up to {@code connections} HTTP/1.1 connections or {@code http2Connections}
     * HTTP/2 ones (a call waiting up to {@code http2StreamWaitMs} for a free stream), answers handled on a request thread
     * (a success on the event loop that read it when {@code successOnEventLoop}).
     */
    private static UpstreamHttpComponent upstreamHttp(Executor answers, boolean successOnEventLoop, int connections,
                                                      int http2Connections, long http2StreamWaitMs, long maxAnswerBytes) {
        UpstreamHttpComponent component = new UpstreamHttpComponent(answers, successOnEventLoop, maxAnswerBytes,
                http2Connections, http2StreamWaitMs);
        // vertx-http's own filter (each endpoint's default), its answer per header name remembered
        component.setHeaderFilterStrategy(new RememberedHeaderFilter(new VertxHttpHeaderFilterStrategy()));
        component.setWebClientOptions(new WebClientOptions()
                .setMaxPoolSize(connections)
                // what camel-http does too (application.properties): no transparent decompression, no user agent
                .setTryUseCompression(false)
                .setUserAgentEnabled(false));
        return component;
    }
}
