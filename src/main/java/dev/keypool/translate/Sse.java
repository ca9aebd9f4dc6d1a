package dev.keypool.translate;

import java.nio.charset.StandardCharsets;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

/**
 * One whole Server-Sent Event, read: its {@code event:} name (null without one) and its {@code data:} lines joined.
 * The relay hands whole events as bytes, so a character split between two reads is whole here.
 */
record Sse(String name, String data) {

    static Sse parse(byte[] event) {
        String name = null;
        StringBuilder data = null;
        for (String line : new String(event, StandardCharsets.UTF_8).split("\r?\n")) {
            if (line.startsWith("event:")) {
                name = line.substring("event:".length()).strip();
            } else if (line.startsWith("data:")) {
                data = data == null ? new StringBuilder() : data.append('\n');
                data.append(line.substring(line.startsWith("data: ") ? 6 : 5));
            }
        }
        return new Sse(name, data == null ? null : data.toString());
    }

    /** The data as JSON, or null when it is none (a comment, [DONE], a broken line). */
    JsonNode json(ObjectMapper mapper) {
        if (data == null || data.isBlank() || !data.strip().startsWith("{")) {
            return null;
        }
        try {
            return mapper.readTree(data);
        } catch (java.io.IOException notJson) {
            return null;
        }
    }

    /** {@code event: <name>} and {@code data: <json>}, as Anthropic writes its events. */
    static byte[] named(String name, JsonNode data) {
        return ("event: " + name + "\ndata: " + data + "\n\n").getBytes(StandardCharsets.UTF_8);
    }

    /** {@code data: <text>}, as OpenAI writes its chunks. */
    static byte[] data(String text) {
        return ("data: " + text + "\n\n").getBytes(StandardCharsets.UTF_8);
    }
}
