package dev.keypool.batch;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

/**
 * One line of a batch input file, {@code {"custom_id","method":"POST","url":"/v1/chat/completions","body":{…}}}:
 * either a request to run, or a malformed line with why, which goes to the error file while the rest runs.
 *
 * @param index    0-based position in the file
 * @param customId null only when the line has none that can be read
 * @param body     the request body, as JSON bytes; null when malformed
 * @param problem  why the line cannot run; null when it can
 */
public record BatchLine(int index, String customId, String url, byte[] body, String problem) {

    /** The endpoints a batch line may call, as OpenAI's batch API has them. */
    public static final List<String> ENDPOINTS = List.of("/v1/chat/completions", "/v1/embeddings");

    public boolean malformed() {
        return problem != null;
    }

    /** The provider path after the base URL: {@code chat/completions}, {@code embeddings}. */
    public String endpointPath() {
        return url.substring("/v1/".length());
    }

    /**
     * The lines of a JSONL file, each checked against the batch's {@code endpoint}: blank lines are skipped (and not
     * counted), a {@code custom_id} seen before makes its second line malformed.
     */
    public static List<BatchLine> parse(byte[] content, String endpoint, ObjectMapper mapper) {
        List<BatchLine> lines = new ArrayList<>();
        Set<String> seen = new HashSet<>();
        int number = 0;
        for (String text : new String(content, StandardCharsets.UTF_8).split("\n")) {
            number++;
            if (text.isBlank()) {
                continue;
            }
            lines.add(parse(lines.size(), number, text, endpoint, seen, mapper));
        }
        return lines;
    }

    /** One line on its own (a Kafka record): it may call any of {@link #ENDPOINTS}. */
    public static BatchLine of(String text, ObjectMapper mapper) {
        String url;
        try {
            url = mapper.readTree(text).path("url").asText();
        } catch (JsonProcessingException | RuntimeException e) {
            url = ENDPOINTS.get(0);   // not JSON: said by parse
        }
        return parse(0, 1, text, ENDPOINTS.contains(url) ? url : ENDPOINTS.get(0), new HashSet<>(), mapper);
    }

    private static BatchLine parse(int index, int number, String text, String endpoint, Set<String> seen, ObjectMapper mapper) {
        JsonNode json;
        try {
            json = mapper.readTree(text);
        } catch (JsonProcessingException e) {
            return malformed(index, null, "Line " + number + " is not valid JSON: " + e.getOriginalMessage());
        }
        if (json == null || !json.isObject()) {
            return malformed(index, null, "Line " + number + " must be a JSON object");
        }
        JsonNode id = json.get("custom_id");
        String customId = id != null && id.isTextual() && !id.asText().isBlank() ? id.asText() : null;
        if (customId == null) {
            return malformed(index, null, "Line " + number + ": 'custom_id' is required and must be a non-empty string");
        }
        if (!seen.add(customId)) {
            return malformed(index, customId, "Line " + number + ": custom_id '" + customId + "' is used by an earlier line");
        }
        if (!"POST".equals(json.path("method").asText())) {
            return malformed(index, customId, "Line " + number + ": 'method' must be \"POST\"");
        }
        String url = json.path("url").asText();
        if (!url.equals(endpoint)) {
            return malformed(index, customId, "Line " + number + ": 'url' must be the batch's endpoint " + endpoint
                    + ", was '" + url + "'");
        }
        JsonNode body = json.get("body");
        if (body == null || !body.isObject()) {
            return malformed(index, customId, "Line " + number + ": 'body' is required and must be a JSON object");
        }
        try {
            return new BatchLine(index, customId, url, mapper.writeValueAsBytes(body), null);
        } catch (JsonProcessingException impossible) {
            throw new IllegalStateException(impossible);
        }
    }

    private static BatchLine malformed(int index, String customId, String problem) {
        return new BatchLine(index, customId, null, null, problem);
    }
}
