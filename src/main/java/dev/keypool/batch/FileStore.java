package dev.keypool.batch;

import java.nio.ByteBuffer;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.Set;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * The files of the batch API (uploaded inputs, output and error files) with their contents: on this instance's disk
 * ({@link DiskFileStore}), or in the database several instances share. Every file expires, as OpenAI's
 * {@code expires_at} says; a file past it is gone for every reader, and {@link #expire} deletes it.
 */
public interface FileStore {

    /** An OpenAI file object and its owner (null without tenants). */
    record StoredFile(String id, String owner, ObjectNode object) {
        public String purpose() {
            return object.path("purpose").asText();
        }

        public Instant expiresAt() {
            JsonNode at = object.get("expires_at");
            return at == null || !at.isNumber() ? Instant.MAX : Instant.ofEpochSecond(at.asLong());
        }
    }

    /** The form of a file id: nothing else names a file (nor a path). */
    static boolean wellFormed(String id) {
        return id != null && id.matches("file-[0-9a-f]{24}");
    }

    /** A new OpenAI file object, made at {@code now}, to expire {@code expiresAfter} later. */
    static ObjectNode object(ObjectMapper mapper, String filename, String purpose, long size, Instant now,
                             Duration expiresAfter) {
        ObjectNode object = mapper.createObjectNode();
        object.put("id", Ids.next("file-"));
        object.put("object", "file");
        object.put("bytes", size);
        object.put("created_at", now.getEpochSecond());
        object.put("expires_at", now.plus(expiresAfter).getEpochSecond());
        object.put("filename", filename);
        object.put("purpose", purpose);
        object.put("status", "processed");
        object.putNull("status_details");
        return object;
    }

    /**
     * Stores what the gateway made for {@code owner} (a batch's output or error file, an inbox's input) as a new file:
     * {@code purpose} is batch for inputs, batch_output for results. Counted in the owner's storage, never refused.
     */
    StoredFile create(String filename, String purpose, String owner, byte[] content);

    /**
     * Stores a client's upload, the bytes left in {@code content}, to expire {@code expiresAfter} after now (null: after
     * the retention).
     *
     * @throws StorageLimitException when it would take {@code owner} past its storage; nothing is written then
     */
    StoredFile upload(String filename, String purpose, String owner, ByteBuffer content, Duration expiresAfter);

    /** The file {@code id}, if there is one and it has not expired. */
    Optional<StoredFile> get(String id);

    /** The content of the file {@code id}. */
    byte[] content(String id);

    /** Deletes the file {@code id}; false when there was none. */
    boolean delete(String id);

    /** Deletes the files past their {@code expires_at}, except those in {@code inUse}; returns how many. */
    int expire(Set<String> inUse);
}
