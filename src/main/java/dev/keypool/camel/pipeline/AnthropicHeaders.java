package dev.keypool.camel.pipeline;

import dev.keypool.gateway.AnthropicBeta;
import dev.keypool.gateway.GatewayRequest;
import dev.keypool.translate.Translation;
import org.apache.camel.Exchange;

/** The anthropic-version and anthropic-beta headers of a provider call (routes/upstream.camel.yaml, upstream-attempt). */
public final class AnthropicHeaders {

    /** The client's anthropic-beta header as it came, kept by routes/messages.camel.yaml. */
    static final String CLIENT_BETA = "kpAnthropicBeta";

    /** The client's anthropic-version header as it came, kept by routes/messages.camel.yaml. */
    static final String CLIENT_VERSION = "kpAnthropicVersion";

    /** The version Anthropic's API is called with for an OpenAI chat request translated for it (design §17). */
    static final String TRANSLATED_VERSION = "2023-06-01";

    /**
     * The anthropic-version header of the attempt: the client's; for a translated request the one its translation was
     * written for, or none to an OpenAI-format channel.
     */
    public String version(Exchange exchange) {
        Translation translation = Exchanges.request(exchange).translation();
        if (translation == null) {
            return exchange.getProperty(CLIENT_VERSION, String.class);
        }
        return translation == Translation.OPENAI_TO_ANTHROPIC ? TRANSLATED_VERSION : null;
    }

    /** The client's flags that the attempt's channel lets through ({@code anthropicBeta}); null: no header. */
    public String beta(Exchange exchange) {
        String header = exchange.getProperty(CLIENT_BETA, String.class);
        if (header == null) {
            return null;
        }
        GatewayRequest request = Exchanges.request(exchange);
        if (request.translation() != null) {
            return null;   // flags of Anthropic's API mean nothing to an OpenAI-format provider
        }
        return AnthropicBeta.filter(header, request.current().config().anthropicBeta());
    }
}
