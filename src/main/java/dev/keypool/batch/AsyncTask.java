package dev.keypool.batch;

import java.time.Instant;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * One request accepted with {@code X-KeyPool-Async: true}: what to send, for whom, and, once done, the answer with
 * its status. Completed means a 2xx answer; any other answer (the provider's or the gateway's own error) is failed.
 *
 * @param owner     the tenant whose token sent it, null without tenants
 * @param status    where it is
 * @param response  null until done: {@code {"status_code","body"}}
 * @param finishedAt null until done
 */
public record AsyncTask(String id, String owner, String endpoint, String api, byte[] request, Instant createdAt,
                        TaskStatus status, JsonNode response, Instant finishedAt) {

    public static AsyncTask queued(String owner, String endpoint, String api, byte[] request, Instant now) {
        return new AsyncTask(Ids.next("task_"), owner, endpoint, api, request, now, TaskStatus.QUEUED, null, null);
    }

    public AsyncTask started() {
        return new AsyncTask(id, owner, endpoint, api, request, createdAt, TaskStatus.IN_PROGRESS, null, null);
    }

    /** Done with the answer the gateway gave it. */
    public AsyncTask finished(int statusCode, JsonNode body, Instant now, ObjectMapper mapper) {
        ObjectNode answer = mapper.createObjectNode();
        answer.put("status_code", statusCode);
        answer.set("body", body);
        TaskStatus done = statusCode >= 200 && statusCode < 300 ? TaskStatus.COMPLETED : TaskStatus.FAILED;
        return new AsyncTask(id, owner, endpoint, api, request, createdAt, done, answer, now);
    }

    public boolean done() {
        return finishedAt != null;
    }

    /** What {@code GET /v1/tasks/{id}} answers: {@code {"id","object":"keypool.task","status",…,"response"}}. */
    public ObjectNode toJson(ObjectMapper mapper) {
        ObjectNode json = mapper.createObjectNode();
        json.put("id", id);
        json.put("object", "keypool.task");
        json.put("status", status.apiName());
        json.put("created_at", createdAt.getEpochSecond());
        if (finishedAt == null) {
            json.putNull("completed_at");
        } else {
            json.put("completed_at", finishedAt.getEpochSecond());
        }
        json.set("response", response);
        return json;
    }
}
