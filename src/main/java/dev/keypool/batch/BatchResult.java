package dev.keypool.batch;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * The result of one batch line, as a line of OpenAI's output or error file:
 * {@code {"id":"batch_req_…","custom_id","response":{"status_code","request_id","body"},"error":null}} for an answer
 * (2xx in the output file, any other status in the error file), or {@code "response":null,"error":{"code","message"}}
 * for a line that could not be sent.
 *
 * @param line its input line's index
 * @param ok   whether it belongs in the output file (a 2xx answer)
 */
public record BatchResult(int line, String customId, boolean ok, ObjectNode record) {

    /** The answer the gateway gave the line: the provider's, or the gateway's own error with its status. */
    public static BatchResult answered(BatchLine line, int status, String requestId, JsonNode body, ObjectMapper mapper) {
        ObjectNode record = mapper.createObjectNode();
        record.put("id", Ids.next("batch_req_"));
        record.put("custom_id", line.customId());
        ObjectNode response = record.putObject("response");
        response.put("status_code", status);
        response.put("request_id", requestId);
        response.set("body", body);
        record.putNull("error");
        return new BatchResult(line.index(), line.customId(), status >= 200 && status < 300, record);
    }

    /** A line that never reached a provider: malformed, or its batch ended first. */
    public static BatchResult failed(BatchLine line, String code, String message, ObjectMapper mapper) {
        ObjectNode record = mapper.createObjectNode();
        record.put("id", Ids.next("batch_req_"));
        record.put("custom_id", line.customId());
        record.putNull("response");
        record.putObject("error").put("code", code).put("message", message);
        return new BatchResult(line.index(), line.customId(), false, record);
    }
}
