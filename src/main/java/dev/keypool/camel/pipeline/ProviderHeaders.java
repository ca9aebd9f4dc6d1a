package dev.keypool.camel.pipeline;

import java.util.Map;

import dev.keypool.config.ChannelConfig;
import dev.keypool.gateway.ProviderUrls;
import org.apache.camel.Exchange;
import org.apache.camel.Message;

/**
 * The headers a channel's provider is sent with every call ({@code headers:} in keypool.yaml, e.g. OpenRouter's
 * {@code HTTP-Referer}), set before the key's header and the Content-Type, which therefore always win; and the query
 * of every call (Azure's {@code api-version}, {@code query:} in keypool.yaml) as {@code CamelHttpQuery}, which
 * camel-http and vertx-http both send: in the endpoint URI it would be read as their options.
 */
public final class ProviderHeaders {

    /** upstream-attempt, after removeHeaders: the current channel's headers. */
    public void apply(Exchange exchange) {
        put(exchange.getMessage(), Exchanges.request(exchange).current().config());
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
