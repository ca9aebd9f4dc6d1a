package dev.keypool.camel.http;

import java.nio.ByteBuffer;
import java.util.Map;

import io.netty.buffer.Unpooled;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.http.HttpServerResponse;
import io.vertx.ext.web.RoutingContext;
import org.apache.camel.Exchange;
import org.apache.camel.Message;
import org.apache.camel.spi.HeaderFilterStrategy;
import org.apache.camel.support.MessageHelper;
import org.apache.camel.support.ObjectHelper;
import org.apache.camel.support.http.HttpUtil;

/**
 * Writes an exchange's answer to its response as platform-http does ({@code VertxPlatformHttpSupport.writeResponse}:
 * the same status, headers, Content-Length or chunked encoding, Content-Type and bytes), for the answers a route ends
 * with: no exception, a body already in bytes or text, or none. Anything else is left to platform-http.
 *
 * <p>Why not platform-http's own: after the provider's 50 ms its write ran on a CPU that sat idle, 146 µs where it
 * takes 25 µs warm (bench/README.md, "The window after the provider answers"), and every class and object it touches
 * costs there. Per header it makes an iterator and converts the value through Camel's type converter; the body, a
 * {@code ByteBuffer} ({@code Exchanges.answer}), is copied into a new buffer; a promise and its listener report a write
 * whose outcome it does not use. Here a header with one value of text or a number is filtered and set as it is, the
 * body's bytes are wrapped, not copied, and the caller goes on at once.
 */
final class AnswerWriter {

    private static final CharSequence CONTENT_LENGTH = HttpHeaders.createOptimized("Content-Length");
    private static final CharSequence CONTENT_TYPE = HttpHeaders.createOptimized("Content-Type");

    private AnswerWriter() {
    }

    /**
     * Ends the response with the exchange's answer, unless platform-http must write it: returns false, having touched
     * nothing, for an exchange that failed (platform-http's error body) and a body of another type (a stream, pumped;
     * an object, converted).
     */
    static boolean write(RoutingContext request, Exchange exchange, HeaderFilterStrategy filter) {
        if (exchange.getException() != null) {
            return false;
        }
        Message message = exchange.getMessage();
        Object body = message.getBody();
        if (!(body == null || body instanceof ByteBuffer || body instanceof byte[] || body instanceof String
                || body instanceof Buffer)) {
            return false;
        }
        HttpServerResponse response = request.response();
        if (response.ended()) {
            return true;
        }
        response.setStatusCode(HttpUtil.determineResponseCode(exchange, body));
        if (filter != null) {
            copyHeaders(request, message, filter, response);
        }
        Buffer bytes = null;
        if (body instanceof ByteBuffer buffer) {
            bytes = Buffer.buffer(Unpooled.wrappedBuffer(buffer));
        } else if (body instanceof byte[] array) {
            bytes = Buffer.buffer(array);
        }
        if (bytes != null) {
            response.putHeader(CONTENT_LENGTH, String.valueOf(bytes.length()));
        } else {
            // platform-http's choice for text, a Buffer and no body alike
            response.setChunked(true);
        }
        String contentType = MessageHelper.getContentType(message);
        if (contentType != null) {
            response.putHeader(CONTENT_TYPE, contentType);
        }
        // the write's outcome is not used, as platform-http does not use it, but a handler-less end would be worse than
        // ignoring it: over HTTP/2 Vert.x then writes with Netty's void promise, whose failure (a stream the client
        // reset meanwhile) reaches the connection's handler as an error of the whole connection, which closes it with
        // every other stream on it (TlsListenerTest's reset stream, then the next request on its connection)
        if (bytes != null) {
            response.end(bytes);
        } else if (body instanceof String text) {
            response.end(text);
        } else if (body instanceof Buffer buffer) {
            response.end(buffer);
        } else {
            response.end();
        }
        return true;
    }

    /**
     * The message's headers through the endpoint's filter, but those named as the route's path parameters: a header of
     * one value of text or a number as it is, any other through platform-http's own conversion (each value of a list,
     * an array's, converted to text).
     */
    private static void copyHeaders(RoutingContext request, Message message, HeaderFilterStrategy filter,
                                    HttpServerResponse response) {
        Map<String, String> pathParameters = request.pathParams();
        Exchange exchange = message.getExchange();
        for (Map.Entry<String, Object> header : message.getHeaders().entrySet()) {
            String name = header.getKey();
            if (pathParameters.containsKey(name)) {
                continue;
            }
            Object value = header.getValue();
            if (value == null) {
                continue;
            }
            if (value instanceof String || value instanceof Number || value instanceof Boolean) {
                String text = value.toString();
                if (!filter.applyFilterToCamelHeaders(name, text, exchange)) {
                    response.putHeader(name, text);
                }
            } else {
                HttpUtil.applyHeader(filter, exchange, ObjectHelper.createIterator(value, null, true),
                        exchange.getContext().getTypeConverter(), name, (values, first) -> {
                            if (values != null) {
                                response.putHeader(name, values);
                            } else if (first != null) {
                                response.putHeader(name, first);
                            }
                        });
            }
        }
    }
}
