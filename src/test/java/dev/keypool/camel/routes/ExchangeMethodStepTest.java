package dev.keypool.camel.routes;

import org.apache.camel.CamelContext;
import org.apache.camel.Exchange;
import org.apache.camel.ProducerTemplate;
import org.apache.camel.builder.RouteBuilder;
import org.apache.camel.component.bean.BeanProcessor;
import org.apache.camel.impl.DefaultCamelContext;
import org.apache.camel.spi.ProcessorFactory;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The bean steps {@link ChannelBreakerFactory} makes itself: a method of the exchange alone, called directly, with the
 * same outcome as Camel's bean processor (its exception the route's error handler's); every other bean step left to
 * Camel.
 */
class ExchangeMethodStepTest {

    private CamelContext context;
    private ProducerTemplate producer;

    /** A bean as the pipeline's are: methods of the exchange alone, and a few Camel must bind. */
    public static final class Gate {
        public void admit(Exchange exchange) {
            exchange.setProperty("admitted", exchange.getMessage().getBody(String.class));
        }

        public void refuse(Exchange exchange) {
            throw new IllegalStateException("refused " + exchange.getMessage().getBody(String.class));
        }

        public String greet(String body) {
            return "hello " + body;
        }

        public void twice(Exchange exchange) {
            exchange.setProperty("twice", "exchange");
        }

        public void twice(Exchange exchange, String body) {
            exchange.setProperty("twice", body);
        }
    }

    @BeforeEach
    void start() throws Exception {
        context = new DefaultCamelContext();
        context.getCamelContextExtension().addContextPlugin(ProcessorFactory.class, new ChannelBreakerFactory());
        context.getRegistry().bind("gate", new Gate());
        // a lambda, not a RouteBuilder subclass: Camel Main in the other tests scans this package for those
        RouteBuilder.addRoutes(context, routes -> {
            routes.onException(IllegalStateException.class).handled(true)
                    .setBody(routes.simple("handled ${exception.message}"));
            routes.from("direct:admit").routeId("admit").bean("gate", "admit").id("admit-step");
            routes.from("direct:refuse").routeId("refuse").bean("gate", "refuse").id("refuse-step")
                    .setBody(routes.constant("not reached"));
            routes.from("direct:greet").routeId("greet").bean("gate", "greet").id("greet-step");
            routes.from("direct:twice").routeId("twice").bean("gate", "twice").id("twice-step");
        });
        context.start();
        producer = context.createProducerTemplate();
    }

    @AfterEach
    void stop() {
        context.stop();
    }

    @Test
    void should_call_a_method_of_the_exchange_alone_directly() {
        Exchange answered = producer.send("direct:admit", e -> e.getMessage().setBody("request"));

        assertThat(context.getProcessor("admit-step")).isInstanceOf(ExchangeMethodStep.class);
        assertThat(answered.getProperty("admitted")).isEqualTo("request");
        assertThat(answered.getException()).isNull();
    }

    @Test
    void should_give_the_methods_exception_to_the_routes_error_handler() {
        Exchange answered = producer.send("direct:refuse", e -> e.getMessage().setBody("request"));

        assertThat(context.getProcessor("refuse-step")).isInstanceOf(ExchangeMethodStep.class);
        assertThat(answered.getMessage().getBody(String.class)).isEqualTo("handled refused request");
    }

    @Test
    void should_leave_to_camel_a_method_whose_parameters_or_result_camel_binds_or_that_is_overloaded() {
        Exchange greeted = producer.send("direct:greet", e -> e.getMessage().setBody("you"));

        assertThat(context.getProcessor("greet-step")).isInstanceOf(BeanProcessor.class);
        assertThat(greeted.getMessage().getBody(String.class)).isEqualTo("hello you");
        assertThat(context.getProcessor("twice-step")).as("an overloaded method: Camel chooses").isInstanceOf(BeanProcessor.class);
    }
}
