package dev.keypool.camel.http;

import java.util.concurrent.atomic.AtomicReference;

import dev.keypool.testing.FakeUpstream;
import org.apache.camel.CamelContext;
import org.apache.camel.Endpoint;
import org.apache.camel.Exchange;
import org.apache.camel.Ordered;
import org.apache.camel.ProducerTemplate;
import org.apache.camel.StartupListener;
import org.apache.camel.builder.RouteBuilder;
import org.apache.camel.impl.DefaultCamelContext;
import org.apache.camel.support.service.ServiceHelper;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A provider's endpoint made while Camel finishes its start (every route started, the context not yet started: a
 * request that came in then, its {@code toD} making the endpoint) is never started by Camel, whose start of services
 * added while it starts is deferred to a moment that has passed. The endpoint still calls the provider: on a fresh
 * gateway every request went on using that endpoint, and failed after one attempt with a gateway error, blaming
 * nothing, until the gateway was restarted.
 */
class UpstreamEndpointMadeWhileStartingTest {

    private static final String CHAT = "{\"model\":\"gpt-4o-mini\",\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}";

    private final FakeUpstream upstream = new FakeUpstream();
    private final CamelContext context = new DefaultCamelContext();

    @AfterEach
    void stop() {
        context.stop();
        upstream.close();
    }

    @Test
    void should_call_the_provider_through_an_endpoint_made_while_the_context_finished_starting() throws Exception {
        String uri = "vertx-http:" + upstream.baseUrl() + "/chat/completions?httpMethod=POST";
        context.addComponent("vertx-http", new UpstreamHttpComponent(Runnable::run, false, 64L << 20, 4, 30_000));
        RouteBuilder.addRoutes(context, routes -> routes.from("direct:call")
                .setHeader("Authorization", routes.constant("Bearer key-1"))
                .setHeader(Exchange.CONTENT_TYPE, routes.constant("application/json"))
                .toD("${exchangeProperty.provider}"));
        AtomicReference<Endpoint> madeWhileStarting = new AtomicReference<>();
        context.addStartupListener(new LastStartupListener(() -> madeWhileStarting.set(context.getEndpoint(uri))));
        context.start();
        assertThat(ServiceHelper.isStarted(madeWhileStarting.get())).as("started by Camel").isFalse();

        ProducerTemplate template = context.createProducerTemplate();
        Exchange done = template.request("direct:call", e -> {
            e.setProperty("provider", uri);
            e.getMessage().setBody(CHAT);
        });

        assertThat(done.getException()).isNull();
        assertThat(done.getMessage().getHeader(Exchange.HTTP_RESPONSE_CODE, Integer.class)).isEqualTo(200);
        assertThat(upstream.hits("key-1")).isEqualTo(1);
    }

    /** Called by Camel after its other startup listeners, the one that starts deferred services among them. */
    private record LastStartupListener(Runnable action) implements StartupListener, Ordered {
        @Override
        public void onCamelContextStarted(CamelContext context, boolean alreadyStarted) {
            if (!alreadyStarted) {
                action.run();
            }
        }

        @Override
        public int getOrder() {
            return Ordered.LOWEST;
        }
    }
}
