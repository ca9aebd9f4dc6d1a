package dev.keypool.camel.batch;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Clock;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.keypool.batch.Batch;
import dev.keypool.batch.BatchLimits;
import dev.keypool.batch.BatchLine;
import dev.keypool.batch.BatchStatus;
import dev.keypool.batch.BatchStore;
import dev.keypool.batch.FileStore;
import dev.keypool.batch.Ids;
import dev.keypool.batch.StorageLimitException;
import dev.keypool.camel.http.RequestBodies;
import dev.keypool.camel.http.RequestEdge;
import dev.keypool.camel.pipeline.Exchanges;
import dev.keypool.gateway.GatewayError;
import dev.keypool.gateway.MultipartForm;
import dev.keypool.tenant.Tenant;
import org.apache.camel.Exchange;

/**
 * The OpenAI Files and Batches endpoints (design §12) that routes/batch.camel.yaml exposes: upload and read files,
 * create, read, list and cancel batches. A tenant sees only its own files and batches; running them is
 * {@link BatchLines}' part.
 */
public final class BatchApi {

    private static final String JSON = "application/json";
    /** The bounds OpenAI sets to expires_after[seconds]. */
    private static final Duration MIN_EXPIRY = Duration.ofHours(1);
    private static final Duration MAX_EXPIRY = Duration.ofDays(30);

    private final FileStore files;
    private final BatchStore batches;
    private final ObjectMapper mapper;
    private final Clock clock;
    private final BatchLimits limits;

    public BatchApi(FileStore files, BatchStore batches, ObjectMapper mapper, Clock clock, BatchLimits limits) {
        this.files = files;
        this.batches = batches;
        this.mapper = mapper;
        this.clock = clock;
        this.limits = limits;
    }

    /**
     * POST /v1/files: a multipart upload with {@code purpose=batch} and a JSONL {@code file} part. Over HTTP/1.1 the
     * edge ({@link RequestEdge}) has written the body to disk as it arrived: it is read through a mapping and its file
     * part stored from there, never whole in the heap. An HTTP/2 request, whose body the edge leaves to platform-http,
     * is read here into the heap (at most batch.max-file-bytes); from the bytes on, both are handled alike.
     */
    public void upload(Exchange exchange) {
        String contentType = exchange.getMessage().getHeader(Exchange.CONTENT_TYPE, String.class);
        Path spooled = RequestBodies.spooled(exchange);
        try (FileChannel channel = spooled == null ? null : FileChannel.open(spooled, StandardOpenOption.READ)) {
            ByteBuffer body = channel == null ? ByteBuffer.wrap(RequestBodies.read(exchange, limits.maxFileBytes())) : mapped(channel);
            MultipartForm form = batchForm(body, contentType);
            MultipartForm.FileRange file = filePart(form);
            FileStore.StoredFile stored = files.upload(fileName(file), "batch", owner(exchange),
                    body.slice(file.start(), file.end() - file.start()), expiresAfter(form));
            answer(exchange, 200, stored.object());
        } catch (StorageLimitException refused) {
            throw refused(refused);
        } catch (IOException e) {
            throw new UncheckedIOException("upload could not be read back", e);
        }
    }

    /** A spooled upload, mapped; 413 past batch.max-file-bytes. */
    private ByteBuffer mapped(FileChannel channel) throws IOException {
        if (channel.size() > limits.maxFileBytes()) {
            throw GatewayError.tooLarge(channel.size(), limits.maxFileBytes());
        }
        return channel.map(FileChannel.MapMode.READ_ONLY, 0, channel.size());
    }

    /** The form of an upload with {@code purpose=batch}; 400 for any other. */
    private static MultipartForm batchForm(ByteBuffer body, String contentType) {
        MultipartForm form = MultipartForm.of(body, contentType).orElseThrow(() -> GatewayError.badRequest(
                "invalid_content_type", "Expected a multipart/form-data body with a boundary"));
        String purpose = form.field("purpose").map(MultipartForm.Field::value).orElseThrow(() ->
                GatewayError.badRequest("missing_purpose", "'purpose' is required as a form field"));
        if (!"batch".equals(purpose)) {
            throw GatewayError.badRequest("invalid_purpose", "This gateway takes files with purpose 'batch' only, not '"
                    + purpose + "'");
        }
        return form;
    }

    private static MultipartForm.FileRange filePart(MultipartForm form) {
        return form.fileRange("file").orElseThrow(() ->
                GatewayError.badRequest("missing_file", "'file' is required as a file part of the form"));
    }

    private static String fileName(MultipartForm.FileRange file) {
        return file.filename().isBlank() ? "upload.jsonl" : file.filename();
    }

    /**
     * OpenAI's {@code expires_after[anchor]=created_at} and {@code expires_after[seconds]} (1 hour to 30 days) form
     * fields; null when there are none (the file expires after batch.retention).
     */
    private static Duration expiresAfter(MultipartForm form) {
        Optional<String> anchor = form.field("expires_after[anchor]").map(MultipartForm.Field::value);
        Optional<String> seconds = form.field("expires_after[seconds]").map(MultipartForm.Field::value);
        if (anchor.isEmpty() && seconds.isEmpty()) {
            return null;
        }
        if (!anchor.map("created_at"::equals).orElse(false)) {
            throw GatewayError.badRequest("invalid_expires_after", "'expires_after[anchor]' must be 'created_at'");
        }
        long value;
        try {
            value = Long.parseLong(seconds.orElse("").trim());
        } catch (NumberFormatException e) {
            value = -1;
        }
        if (value < MIN_EXPIRY.toSeconds() || value > MAX_EXPIRY.toSeconds()) {
            throw GatewayError.badRequest("invalid_expires_after", "'expires_after[seconds]' must be a whole number "
                    + "between " + MIN_EXPIRY.toSeconds() + " (1 hour) and " + MAX_EXPIRY.toSeconds() + " (30 days)");
        }
        return Duration.ofSeconds(value);
    }

    /** DELETE /v1/files/{id}: {@code {"id","object":"file","deleted":true}}; 404 for another tenant's or none. */
    public void deleteFile(Exchange exchange) {
        FileStore.StoredFile file = ownFile(exchange);
        boolean deleted = files.delete(file.id());
        answer(exchange, 200, mapper.createObjectNode().put("id", file.id()).put("object", "file").put("deleted", deleted));
    }

    /**
     * Deletes the files past their expires_at (not the input of a batch still running) and the checkpoints of
     * batches over for batch.retention.
     */
    public void expire() {
        files.expire(batches.inputsInUse());
        batches.expireResults(clock.instant(), limits.retention());
    }

    /** A task or file past its tenant's limits: 429 too_many_tasks or storage_exhausted. */
    static GatewayError refused(StorageLimitException refused) {
        return refused.limit() == StorageLimitException.Limit.QUEUED_TASKS ? GatewayError.tooManyTasks(refused.max())
                : GatewayError.storageExhausted(refused.max());
    }

    /** GET /v1/files/{id}: the file object. */
    public void file(Exchange exchange) {
        answer(exchange, 200, ownFile(exchange).object());
    }

    /** GET /v1/files/{id}/content: the file's bytes, JSON lines. */
    public void fileContent(Exchange exchange) {
        FileStore.StoredFile file = ownFile(exchange);
        Exchanges.answer(exchange.getMessage(), 200, "application/jsonl", files.content(file.id()));
    }

    /** POST /v1/batches {@code {"input_file_id","endpoint","completion_window":"24h","metadata"}}: a new batch, validating. */
    public void create(Exchange exchange) {
        JsonNode json = readJson(exchange);
        String inputFileId = text(json, "input_file_id");
        String endpoint = text(json, "endpoint");
        String window = text(json, "completion_window");
        if (!BatchLine.ENDPOINTS.contains(endpoint)) {
            throw GatewayError.badRequest("invalid_endpoint", "'endpoint' must be one of " + BatchLine.ENDPOINTS
                    + ", was '" + endpoint + "'");
        }
        if (!Batch.COMPLETION_WINDOW.equals(window)) {
            throw GatewayError.badRequest("invalid_completion_window", "'completion_window' must be \"24h\"");
        }
        FileStore.StoredFile input = files.get(inputFileId).filter(f -> Objects.equals(f.owner(), owner(exchange)))
                .orElseThrow(() -> notFound("file", inputFileId));
        if (!"batch".equals(input.purpose())) {
            throw GatewayError.badRequest("invalid_input_file", "File " + inputFileId + " has purpose '"
                    + input.purpose() + "', not 'batch'");
        }
        Map<String, String> metadata = new LinkedHashMap<>();
        if (json.path("metadata").isObject()) {
            json.get("metadata").properties().forEach(e -> metadata.put(e.getKey(), e.getValue().asText()));
        }
        Batch batch = new Batch(Ids.next("batch_"), endpoint, inputFileId, owner(exchange), clock.instant(), metadata);
        // under no lease: the first instance with no batch running claims it (batch-jobs)
        batches.create(batch, null, clock.instant());
        answer(exchange, 200, batch.toJson(mapper));
    }

    /** GET /v1/batches/{id}. */
    public void batch(Exchange exchange) {
        answer(exchange, 200, ownBatch(exchange).toJson(mapper));
    }

    /** GET /v1/batches?limit=&after=: OpenAI's list page, newest first. */
    public void list(Exchange exchange) {
        int limit = exchange.getMessage().getHeader("limit", 20, Integer.class);
        if (limit < 1 || limit > 100) {
            throw GatewayError.badRequest("invalid_limit", "'limit' must be between 1 and 100");
        }
        String after = exchange.getMessage().getHeader("after", String.class);
        List<Batch> all = batches.list(owner(exchange));
        int from = 0;
        if (after != null) {
            for (int i = 0; i < all.size(); i++) {
                if (all.get(i).id().equals(after)) {
                    from = i + 1;
                }
            }
        }
        List<Batch> page = all.subList(Math.min(from, all.size()), Math.min(from + limit, all.size()));
        ObjectNode list = mapper.createObjectNode().put("object", "list");
        ArrayNode data = list.putArray("data");
        page.forEach(b -> data.add(b.toJson(mapper)));
        list.put("first_id", page.isEmpty() ? null : page.get(0).id());
        list.put("last_id", page.isEmpty() ? null : page.get(page.size() - 1).id());
        list.put("has_more", from + limit < all.size());
        answer(exchange, 200, list);
    }

    /**
     * POST /v1/batches/{id}/cancel: cancelling (the lines in flight finish, no new one starts), then cancelled when
     * the instance that works it has stopped it; 409 for a batch already over, as OpenAI answers. Through any instance:
     * the one working the batch reads the status before each line.
     */
    public void cancel(Exchange exchange) {
        Batch batch = ownBatch(exchange);
        while (true) {
            BatchStatus from = batch.status();
            if (!batch.moveTo(BatchStatus.CANCELLING, clock.instant())) {
                throw new GatewayError(409, "invalid_request_error", "batch_not_cancellable",
                        "Batch " + batch.id() + " is " + batch.status().apiName() + " and cannot be cancelled", null);
            }
            if (batches.update(batch, from)) {
                break;
            }
            // moved meanwhile (started, finalizing): read again; a status only moves on, so this ends
            batch = ownBatch(exchange);
        }
        answer(exchange, 200, batch.toJson(mapper));
    }

    private Batch ownBatch(Exchange exchange) {
        String id = exchange.getMessage().getHeader("id", String.class);
        return batches.get(id).filter(b -> Objects.equals(b.owner(), owner(exchange))).orElseThrow(() -> notFound("batch", id));
    }

    private FileStore.StoredFile ownFile(Exchange exchange) {
        String id = exchange.getMessage().getHeader("id", String.class);
        return files.get(id).filter(f -> Objects.equals(f.owner(), owner(exchange))).orElseThrow(() -> notFound("file", id));
    }

    /** The tenant that sent the request (tenantGate.authenticate ran before), null without tenants. */
    static String owner(Exchange exchange) {
        Tenant tenant = exchange.getProperty(Exchanges.TENANT, Tenant.class);
        return tenant == null ? null : tenant.name();
    }

    private static GatewayError notFound(String what, String id) {
        return new GatewayError(404, "invalid_request_error", "not_found", "No " + what + " with id '" + id + "'", null);
    }

    private JsonNode readJson(Exchange exchange) {
        byte[] raw = exchange.getMessage().getBody(byte[].class);
        try {
            JsonNode json = raw == null ? null : mapper.readTree(raw);
            if (json != null && json.isObject()) {
                return json;
            }
        } catch (IOException e) {
            // answered below
        }
        throw GatewayError.badRequest("invalid_json", "Request body must be a JSON object");
    }

    private static String text(JsonNode json, String field) {
        JsonNode value = json.get(field);
        if (value == null || !value.isTextual() || value.asText().isBlank()) {
            throw GatewayError.badRequest("missing_" + field, "'" + field + "' is required and must be a non-empty string");
        }
        return value.asText();
    }

    private void answer(Exchange exchange, int status, JsonNode body) {
        BatchJson.answer(exchange, mapper, status, body);
    }
}
