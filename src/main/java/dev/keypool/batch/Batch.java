package dev.keypool.batch;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * One batch job: the OpenAI batch object (status, timestamps, files, request counts) and, kept apart from it, who
 * owns it (the tenant whose token created it, or none). Its status changes only in {@link #moveTo}, along the moves
 * {@link BatchStatus} allows, each stamped with its {@code *_at} time.
 */
public final class Batch {

    /** The only completion window OpenAI accepts. */
    public static final String COMPLETION_WINDOW = "24h";
    static final Duration WINDOW = Duration.ofHours(24);
    /** The metadata entry that says where a batch came from, when not from the API: {@code source: inbox}. */
    public static final String SOURCE = "source";
    public static final String INBOX = "inbox";

    private final String id;
    private final String endpoint;
    private final String inputFileId;
    private final String owner;
    private final Instant createdAt;
    private final Map<String, String> metadata;
    private BatchStatus status = BatchStatus.VALIDATING;
    private final Map<BatchStatus, Instant> stamps = new EnumMap<>(BatchStatus.class);
    private String outputFileId;
    private String errorFileId;
    private int total;
    private int completed;
    private int failed;
    private final List<String> errors = new ArrayList<>();
    /** The member whose lease the batch is under, as its store last said; not part of the API object. */
    private String claimedBy;

    /**
     * @param owner the tenant whose token created it; null on a gateway without tenants (or a file inbox without one)
     */
    public Batch(String id, String endpoint, String inputFileId, String owner, Instant createdAt, Map<String, String> metadata) {
        this.id = id;
        this.endpoint = endpoint;
        this.inputFileId = inputFileId;
        this.owner = owner;
        this.createdAt = createdAt;
        this.metadata = metadata == null ? Map.of() : Map.copyOf(metadata);
    }

    public String id() {
        return id;
    }

    /** {@code /v1/chat/completions} or {@code /v1/embeddings}. */
    public String endpoint() {
        return endpoint;
    }

    public String inputFileId() {
        return inputFileId;
    }

    public String owner() {
        return owner;
    }

    public Map<String, String> metadata() {
        return metadata;
    }

    /** A batch of the file inbox: its file, read again at startup, takes it up again. */
    public boolean fromInbox() {
        return INBOX.equals(metadata.get(SOURCE));
    }

    public Instant createdAt() {
        return createdAt;
    }

    public synchronized BatchStatus status() {
        return status;
    }

    /** When it reached the status it is over in (completed, failed, expired, cancelled); null while it is not. */
    public synchronized Instant endedAt() {
        return status.terminal() ? stamps.get(status) : null;
    }

    /** When the 24 h completion window ends. */
    public Instant expiresAt() {
        return createdAt.plus(WINDOW);
    }

    /**
     * Moves to {@code next} at {@code at}, if the table of {@link BatchStatus} allows it; false (and nothing changes)
     * when it does not, e.g. a cancel of a batch already completed.
     */
    public synchronized boolean moveTo(BatchStatus next, Instant at) {
        if (!status.next().contains(next)) {
            return false;
        }
        status = next;
        stamps.put(next, at);
        return true;
    }

    /** The number of lines in its input file, known once validated. */
    public synchronized void lines(int total) {
        this.total = total;
    }

    /**
     * The counts as the store's checkpoints have them ({@code completed}: 2xx answers, in the output file;
     * {@code failed}: the rest, in the error file), set by the store on every batch it reads.
     */
    public synchronized void counts(int completed, int failed) {
        this.completed = completed;
        this.failed = failed;
    }

    public synchronized int total() {
        return total;
    }

    /** Lines with a result, ok or not. */
    public synchronized int done() {
        return completed + failed;
    }

    /** The member (a {@link Claimant}'s id) whose lease the batch is under, null for none; set by its store. */
    public synchronized String claimedBy() {
        return claimedBy;
    }

    public synchronized void claimedBy(String member) {
        this.claimedBy = member;
    }

    /** A copy that changes apart from this one: what a store hands out, so that a change counts only once stored. */
    public synchronized Batch copy() {
        Batch copy = new Batch(id, endpoint, inputFileId, owner, createdAt, metadata);
        copy.status = status;
        copy.stamps.putAll(stamps);
        copy.outputFileId = outputFileId;
        copy.errorFileId = errorFileId;
        copy.total = total;
        copy.completed = completed;
        copy.failed = failed;
        copy.errors.addAll(errors);
        copy.claimedBy = claimedBy;
        return copy;
    }

    /** A reason the whole batch failed validation (OpenAI's {@code errors.data}). */
    public synchronized void error(String message) {
        errors.add(message);
    }

    /**
     * Its last move, with its output and error files in the same step, so that whoever sees it over sees its files:
     * completed once finalizing, cancelled once cancelling, expired while still in progress (its window ended). A
     * batch already over stays as it is. Returns the status it is in.
     */
    public synchronized BatchStatus end(Instant at, String outputFileId, String errorFileId) {
        BatchStatus last = switch (status) {
            case FINALIZING -> BatchStatus.COMPLETED;
            case CANCELLING -> BatchStatus.CANCELLED;
            case IN_PROGRESS -> BatchStatus.EXPIRED;
            default -> status;
        };
        if (last != status) {
            this.outputFileId = outputFileId;
            this.errorFileId = errorFileId;
            moveTo(last, at);
        }
        return status;
    }

    /** The OpenAI batch object, every field present (null when not set), as the API answers it. */
    public synchronized ObjectNode toJson(ObjectMapper mapper) {
        ObjectNode json = mapper.createObjectNode();
        json.put("id", id);
        json.put("object", "batch");
        json.put("endpoint", endpoint);
        if (errors.isEmpty()) {
            json.putNull("errors");
        } else {
            ObjectNode list = json.putObject("errors").put("object", "list");
            errors.forEach(e -> list.withArray("data").addObject().put("code", "invalid_request").put("message", e)
                    .putNull("param").putNull("line"));
        }
        json.put("input_file_id", inputFileId);
        json.put("completion_window", COMPLETION_WINDOW);
        json.put("status", status.apiName());
        json.put("output_file_id", outputFileId);
        json.put("error_file_id", errorFileId);
        json.put("created_at", createdAt.getEpochSecond());
        stamp(json, "in_progress_at", BatchStatus.IN_PROGRESS);
        json.put("expires_at", expiresAt().getEpochSecond());
        stamp(json, "finalizing_at", BatchStatus.FINALIZING);
        stamp(json, "completed_at", BatchStatus.COMPLETED);
        stamp(json, "failed_at", BatchStatus.FAILED);
        stamp(json, "expired_at", BatchStatus.EXPIRED);
        stamp(json, "cancelling_at", BatchStatus.CANCELLING);
        stamp(json, "cancelled_at", BatchStatus.CANCELLED);
        json.putObject("request_counts").put("total", total).put("completed", completed).put("failed", failed);
        if (metadata.isEmpty()) {
            json.putNull("metadata");
        } else {
            ObjectNode m = json.putObject("metadata");
            metadata.forEach(m::put);
        }
        return json;
    }

    private void stamp(ObjectNode json, String field, BatchStatus of) {
        Instant at = stamps.get(of);
        if (at == null) {
            json.putNull(field);
        } else {
            json.put(field, at.getEpochSecond());
        }
    }

    /** What a {@link BatchStore} writes: the API object and its owner, which the API never shows. */
    public synchronized ObjectNode toStored(ObjectMapper mapper) {
        ObjectNode stored = mapper.createObjectNode();
        stored.put("owner", owner);
        stored.set("batch", toJson(mapper));
        return stored;
    }

    /** A batch read back from {@link #toStored}, with the counts it was written with. */
    public static Batch fromStored(JsonNode stored) {
        JsonNode b = stored.get("batch");
        Map<String, String> metadata = new LinkedHashMap<>();
        if (b.path("metadata").isObject()) {
            b.get("metadata").properties().forEach(e -> metadata.put(e.getKey(), e.getValue().asText()));
        }
        Batch batch = new Batch(b.get("id").asText(), b.get("endpoint").asText(), b.get("input_file_id").asText(),
                stored.path("owner").isTextual() ? stored.get("owner").asText() : null,
                Instant.ofEpochSecond(b.get("created_at").asLong()), metadata);
        batch.status = BatchStatus.ofApiName(b.get("status").asText());
        for (BatchStatus s : BatchStatus.values()) {
            JsonNode at = b.get(s.apiName() + "_at");
            if (at != null && at.isNumber()) {
                batch.stamps.put(s, Instant.ofEpochSecond(at.asLong()));
            }
        }
        batch.outputFileId = b.path("output_file_id").isTextual() ? b.get("output_file_id").asText() : null;
        batch.errorFileId = b.path("error_file_id").isTextual() ? b.get("error_file_id").asText() : null;
        batch.total = b.path("request_counts").path("total").asInt();
        batch.completed = b.path("request_counts").path("completed").asInt();
        batch.failed = b.path("request_counts").path("failed").asInt();
        if (b.path("errors").path("data").isArray()) {
            b.get("errors").get("data").forEach(e -> batch.errors.add(e.path("message").asText()));
        }
        return batch;
    }
}
