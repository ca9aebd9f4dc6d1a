package dev.keypool.camel.pipeline;

import dev.keypool.gateway.AnthropicBeta;
import dev.keypool.gateway.GatewayRequest;
import org.apache.camel.Exchange;

/** The anthropic-beta header of a provider call (routes/upstream.camel.yaml, upstream-attempt). */
public final class AnthropicHeaders {

    /** The client's anthropic-beta header as it came, kept by routes/messages.camel.yaml. */
    static final String CLIENT_BETA = "kpAnthropicBeta";

    /** The client's flags that the attempt's channel lets through ({@code anthropicBeta}); null: no header. */
    public String beta(Exchange exchange) {
        String header = exchange.getProperty(CLIENT_BETA, String.class);
        if (header == null) {
            return null;
        }
        GatewayRequest request = Exchanges.request(exchange);
        return AnthropicBeta.filter(header, request.current().config().anthropicBeta());
    }
}
