package dev.keypool.camel.batch;

import java.io.IOException;
import java.nio.charset.StandardCharsets;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.TextNode;
import dev.keypool.camel.pipeline.Exchanges;
import org.apache.camel.Exchange;

/** JSON in and out of the batch and task beans: answers the gateway core gave, and the answers they make. */
final class BatchJson {

    private BatchJson() {
    }

    /** An answer body kept inside a result: its JSON, or its text when it is not JSON, or null when empty. */
    static JsonNode body(ObjectMapper mapper, byte[] bytes) {
        if (bytes == null || bytes.length == 0) {
            return mapper.nullNode();
        }
        try {
            return mapper.readTree(bytes);
        } catch (IOException e) {
            return new TextNode(new String(bytes, StandardCharsets.UTF_8));
        }
    }

    /** Makes {@code body} the HTTP answer, as JSON. */
    static void answer(Exchange exchange, ObjectMapper mapper, int status, JsonNode body) {
        try {
            Exchanges.answer(exchange.getMessage(), status, "application/json", mapper.writeValueAsBytes(body));
        } catch (JsonProcessingException impossible) {
            throw new IllegalStateException(impossible);
        }
    }
}
