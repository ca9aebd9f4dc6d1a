package dev.keypool.camel.pipeline;

import java.util.Map;

import dev.keypool.config.ChannelConfig;
import dev.keypool.gateway.GatewayRequest;
import dev.keypool.gateway.ProviderUrls;
import org.apache.camel.Exchange;
import org.apache.camel.Message;

/**
 * The headers of a provider call but the key's, set in one step of upstream-attempt after the client's are removed:
 * Anthropic's version and beta flags ({@link AnthropicHeaders}); the headers the channel's provider is sent with every
 * call ({@code headers:} in keypool.yaml, e.g. OpenRouter's {@code HTTP-Referer}), which the key's header and the
 * Content-Type, set after them, always win over; the query of every call (Azure's {@code api-version},
 * {@code query:} in keypool.yaml) as {@code CamelHttpQuery}, which camel-http and vertx-http both send: in the
 * endpoint URI it would be read as their options; and the Content-Type of the body: JSON, or the client's multipart
 * type with its boundary. One step, not one per header: each step of a route costs its error handler's task and a
 * continuation per call.
 */
public final class ProviderHeaders {

    private final AnthropicHeaders anthropic = new AnthropicHeaders();

    /** upstream-attempt, after removeHeaders: the headers of the current channel's call. */
    public void apply(Exchange exchange) {
        GatewayRequest request = Exchanges.request(exchange);
        Message message = exchange.getMessage();
        anthropic.apply(exchange);
        put(message, request.current().config());
        message.setHeader(Exchange.CONTENT_TYPE, request.upstreamContentType());
    }

    /** The channel's headers and query on the message (a health probe's too). */
    public static void put(Message message, ChannelConfig channel) {
        Map<String, String> headers = channel.provider().headers();
        if (!headers.isEmpty()) {
            headers.forEach(message::setHeader);
        }
        String query = ProviderUrls.query(channel);
        if (query != null) {
            message.setHeader(Exchange.HTTP_QUERY, query);
        }
    }
}
