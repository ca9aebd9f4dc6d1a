package dev.keypool.camel.pipeline;

import java.io.IOException;

import com.fasterxml.jackson.core.JsonParseException;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.keypool.gateway.TokenUsage;
import org.apache.camel.Exchange;
import org.apache.camel.Message;
import org.apache.camel.http.base.HttpOperationFailedException;

/** What the provider answered: a success to account for, or a client error to pass back unchanged. */
public final class UpstreamResponses {

    private final ObjectMapper mapper;

    public UpstreamResponses(ObjectMapper mapper) {
        this.mapper = mapper;
    }

    /**
     * Last step of upstream-attempt: the body stays as the provider sent it (JSON, or binary such as speech audio);
     * the usage of a JSON answer is counted on the key: {@code prompt_tokens}/{@code completion_tokens} (chat,
     * completions, embeddings) or {@code input_tokens}/{@code output_tokens} (responses, images, messages: with
     * Anthropic's cache fields, {@link TokenUsage}).
     */
    public void recordSuccess(Exchange exchange) {
        Message message = exchange.getMessage();
        byte[] body = message.getBody(byte[].class);
        message.setBody(body);
        JsonNode usage = isJson(message.getHeader(Exchange.CONTENT_TYPE, String.class)) ? usage(body) : mapper.missingNode();
        TokenUsage tokens = TokenUsage.of(usage);
        Exchanges.request(exchange).attempt().succeeded(tokens);
    }

    /** A provider that names no type is read as JSON, as OpenAI-compatible servers mostly answer it. */
    private static boolean isJson(String contentType) {
        return contentType == null || contentType.contains("json");
    }

    /** Continued 4xx (400, 404, 413, 422 …): the client gets the provider's status and body as they are. */
    public void passThroughClientError(Exchange exchange) {
        HttpOperationFailedException e = exchange.getProperty(Exchange.EXCEPTION_CAUGHT, HttpOperationFailedException.class);
        Message message = exchange.getMessage();
        message.setHeader(Exchange.HTTP_RESPONSE_CODE, e.getStatusCode());
        String contentType = AttemptOutcomes.header(e.getResponseHeaders(), "Content-Type");
        message.setHeader(Exchange.CONTENT_TYPE, contentType == null ? "application/json" : contentType);
        message.setBody(e.getResponseBody());
    }

    /** The top-level {@code usage} object of the answer; only that object is built, the rest is skipped. */
    JsonNode usage(byte[] body) {
        if (body == null || body.length == 0) {
            return mapper.missingNode();
        }
        try (JsonParser parser = mapper.createParser(body)) {
            if (parser.nextToken() == JsonToken.START_OBJECT) {
                while (parser.nextToken() == JsonToken.FIELD_NAME) {
                    String field = parser.currentName();
                    parser.nextToken();
                    if ("usage".equals(field)) {
                        return tree(parser, mapper.getNodeFactory());
                    }
                    parser.skipChildren();
                }
            }
        } catch (IOException notJson) {
            // not JSON, or cut short: nothing to count
        }
        return mapper.missingNode();
    }

    /**
     * The value at the parser's token as Jackson's tree, as {@code mapper.readTree(parser)} builds it (ints and longs
     * as numbers, floats as doubles, a repeated field's last value kept), without the databind's machinery readTree
     * runs per call (a deserialization context, the root deserializer's lookup): this runs after the provider's
     * answer, on a CPU that sat idle while the provider thought, where each distinct piece of code costs cache misses.
     */
    private static JsonNode tree(JsonParser parser, JsonNodeFactory nodes) throws IOException {
        switch (parser.currentToken()) {
            case START_OBJECT -> {
                ObjectNode object = nodes.objectNode();
                while (parser.nextToken() == JsonToken.FIELD_NAME) {
                    String field = parser.currentName();
                    parser.nextToken();
                    object.set(field, tree(parser, nodes));
                }
                return object;
            }
            case START_ARRAY -> {
                ArrayNode array = nodes.arrayNode();
                while (parser.nextToken() != JsonToken.END_ARRAY) {
                    array.add(tree(parser, nodes));
                }
                return array;
            }
            case VALUE_STRING -> {
                return nodes.textNode(parser.getText());
            }
            case VALUE_NUMBER_INT -> {
                return switch (parser.getNumberType()) {
                    case INT -> nodes.numberNode(parser.getIntValue());
                    case LONG -> nodes.numberNode(parser.getLongValue());
                    default -> nodes.numberNode(parser.getBigIntegerValue());
                };
            }
            case VALUE_NUMBER_FLOAT -> {
                return nodes.numberNode(parser.getDoubleValue());
            }
            case VALUE_TRUE, VALUE_FALSE -> {
                return nodes.booleanNode(parser.getBooleanValue());
            }
            case VALUE_NULL -> {
                return nodes.nullNode();
            }
            default -> throw new JsonParseException(parser, "unexpected " + parser.currentToken() + " in usage");
        }
    }
}
