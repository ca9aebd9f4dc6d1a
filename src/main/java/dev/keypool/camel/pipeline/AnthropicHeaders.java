package dev.keypool.camel.pipeline;

import dev.keypool.gateway.AnthropicBeta;
import dev.keypool.gateway.GatewayRequest;
import dev.keypool.translate.Translation;
import org.apache.camel.Exchange;
import org.apache.camel.Message;

/**
 * The anthropic-version and anthropic-beta headers of a provider call, set by {@link ProviderHeaders} in
 * upstream-attempt. Not two {@code setHeader} steps with {@code method:} expressions: Camel evaluates each such
 * expression on a copy of the whole exchange, its properties and headers, two copies per attempt.
 */
final class AnthropicHeaders {

    /** The client's anthropic-beta header as it came, kept by routes/messages.camel.yaml. */
    static final String CLIENT_BETA = "kpAnthropicBeta";

    /** The client's anthropic-version header as it came, kept by routes/messages.camel.yaml. */
    static final String CLIENT_VERSION = "kpAnthropicVersion";

    /** The version Anthropic's API is called with for an OpenAI chat request translated for it (design §17). */
    static final String TRANSLATED_VERSION = "2023-06-01";

    /** After the client's headers are removed: the two headers of the attempt, each only when it has a value. */
    void apply(Exchange exchange) {
        Message message = exchange.getMessage();
        String version = version(exchange);
        if (version != null) {
            message.setHeader("anthropic-version", version);
        }
        String beta = beta(exchange);
        if (beta != null) {
            message.setHeader("anthropic-beta", beta);
        }
    }

    /**
     * The anthropic-version header of the attempt: the client's; for a translated request the one its translation was
     * written for, or none to an OpenAI-format channel.
     */
    String version(Exchange exchange) {
        Translation translation = Exchanges.request(exchange).translation();
        if (translation == null) {
            return exchange.getProperty(CLIENT_VERSION, String.class);
        }
        return translation == Translation.OPENAI_TO_ANTHROPIC ? TRANSLATED_VERSION : null;
    }

    /** The client's flags that the attempt's channel lets through ({@code anthropicBeta}); null: no header. */
    String beta(Exchange exchange) {
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
