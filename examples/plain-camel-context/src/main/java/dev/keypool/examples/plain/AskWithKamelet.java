package dev.keypool.examples.plain;

import java.util.List;

import org.apache.camel.CamelContext;
import org.apache.camel.ProducerTemplate;
import org.apache.camel.builder.RouteBuilder;
import org.apache.camel.impl.DefaultCamelContext;
import org.apache.camel.model.dataformat.JsonLibrary;

/**
 * A plain CamelContext, no Camel Main: one Java route asks a model through the keypool-chat-action Kamelet (packaged in
 * the keypool jar), for each question given as an argument, and logs the answer and which key served it.
 */
public final class AskWithKamelet {

    private static final List<String> QUESTIONS = List.of("What is a circuit breaker?", "What is a fallback chain?");

    private AskWithKamelet() {
    }

    public static void main(String[] args) throws Exception {
        try (CamelContext context = new DefaultCamelContext()) {
            // KeyPool's settings, as in an application.properties: its channels and keys, and where it keeps quota counts
            context.getPropertiesComponent().addInitialProperty("keypool.config", "keypool.yaml");
            context.getPropertiesComponent().addInitialProperty("state.dir", "target/keypool-state");
            context.addRoutes(new RouteBuilder() {
                @Override
                public void configure() {
                    from("direct:ask").routeId("ask")
                            .to("kamelet:keypool-chat-action?model=gpt-4o-mini")
                            .unmarshal().json(JsonLibrary.Jackson)
                            .log("Answer from channel ${header.KeyPoolChannel}, key ${header.KeyPoolKey}, "
                                    + "after ${header.KeyPoolAttempts} call(s): ${body[choices][0][message][content]}");
                }
            });
            context.start();
            ProducerTemplate template = context.createProducerTemplate();
            for (String question : args.length > 0 ? List.of(args) : QUESTIONS) {
                template.sendBody("direct:ask", question);
            }
        }
    }
}
