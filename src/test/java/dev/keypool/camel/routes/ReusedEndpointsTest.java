package dev.keypool.camel.routes;

import org.apache.camel.CamelContext;
import org.apache.camel.Endpoint;
import org.apache.camel.Exchange;
import org.apache.camel.Expression;
import org.apache.camel.ProducerTemplate;
import org.apache.camel.builder.RouteBuilder;
import org.apache.camel.impl.DefaultCamelContext;
import org.apache.camel.processor.SendDynamicProcessor;
import org.apache.camel.spi.ProcessorFactory;
import org.apache.camel.support.DefaultExchange;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The {@code toD} steps whose URI Camel does not optimise: their expression answers the endpoint of the URI, resolved
 * once, so that Camel sends to it without parsing and normalising the URI on every exchange; the exchange goes where
 * the URI says, as before.
 */
class ReusedEndpointsTest {

    private CamelContext context;
    private ProducerTemplate producer;

    @BeforeEach
    void start() throws Exception {
        context = new DefaultCamelContext();
        context.getCamelContextExtension().addContextPlugin(ProcessorFactory.class, new ChannelBreakerFactory());
        // a lambda, not a RouteBuilder subclass: Camel Main in the other tests scans this package for those
        RouteBuilder.addRoutes(context, routes -> {
            routes.from("direct:walk").routeId("walk").toD("${header.next}").id("hop");
            routes.from("direct:call").routeId("call")
                    .toD("direct:${header.next}").id("optimisable");
            routes.from("direct:prototype").routeId("prototype").toD("${header.next}", -1).id("prototypes");
            routes.from("direct:a").routeId("a").setBody(routes.constant("from a"));
            routes.from("direct:b").routeId("b").setBody(routes.constant("from b"));
        });
        context.start();
        producer = context.createProducerTemplate();
    }

    @AfterEach
    void stop() {
        context.stop();
    }

    @Test
    void should_send_each_uri_to_the_endpoint_it_resolved_once() {
        Expression hop = ((SendDynamicProcessor) context.getProcessor("hop")).getExpression();

        Object first = hop.evaluate(exchangeTo("direct:a"), Object.class);
        Object again = hop.evaluate(exchangeTo("direct:a"), Object.class);

        assertThat(first).isInstanceOf(Endpoint.class).isSameAs(again).isSameAs(context.getEndpoint("direct:a"));
        assertThat(hop.evaluate(exchangeTo("direct:b"), Object.class)).isSameAs(context.getEndpoint("direct:b"));
        assertThat(producer.requestBodyAndHeader("direct:walk", "", "next", "direct:a")).isEqualTo("from a");
        assertThat(producer.requestBodyAndHeader("direct:walk", "", "next", "direct:b")).isEqualTo("from b");
        assertThat(producer.requestBodyAndHeader("direct:walk", "", "next", "direct:a")).isEqualTo("from a");
    }

    @Test
    void should_resolve_again_an_endpoint_removed_meanwhile() throws Exception {
        Expression hop = ((SendDynamicProcessor) context.getProcessor("hop")).getExpression();
        Endpoint before = hop.evaluate(exchangeTo("direct:a"), Endpoint.class);

        context.getRouteController().stopRoute("a");
        context.removeRoute("a");
        context.removeEndpoint(before);
        RouteBuilder.addRoutes(context, routes -> routes.from("direct:a").routeId("a2").setBody(routes.constant("from a2")));

        Endpoint after = hop.evaluate(exchangeTo("direct:a"), Endpoint.class);
        assertThat(after).isNotSameAs(before).isSameAs(context.getEndpoint("direct:a"));
        assertThat(producer.requestBodyAndHeader("direct:walk", "", "next", "direct:a")).isEqualTo("from a2");
    }

    @Test
    void should_leave_to_camel_a_uri_whose_component_it_may_optimise() {
        Expression optimisable = ((SendDynamicProcessor) context.getProcessor("optimisable")).getExpression();

        assertThat(optimisable).isNotInstanceOf(ReusedEndpoints.class);
        assertThat(producer.requestBodyAndHeader("direct:call", "", "next", "b")).isEqualTo("from b");
    }

    @Test
    void should_leave_to_camel_a_step_that_makes_an_endpoint_for_every_exchange() {
        Expression prototypes = ((SendDynamicProcessor) context.getProcessor("prototypes")).getExpression();

        assertThat(prototypes).isNotInstanceOf(ReusedEndpoints.class);
        assertThat(producer.requestBodyAndHeader("direct:prototype", "", "next", "direct:b")).isEqualTo("from b");
    }

    private Exchange exchangeTo(String uri) {
        Exchange exchange = new DefaultExchange(context);
        exchange.getMessage().setHeader("next", uri);
        return exchange;
    }
}
