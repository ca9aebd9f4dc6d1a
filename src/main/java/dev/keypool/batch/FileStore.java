package dev.keypool.batch;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.Optional;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * The files of the batch API (uploaded inputs, output and error files), under {@code state.dir/batch/files}: the
 * content as {@code <id>.jsonl} and the OpenAI file object as {@code <id>.json}, with the tenant that owns it.
 */
public final class FileStore {

    /** An OpenAI file object and its owner (null without tenants). */
    public record StoredFile(String id, String owner, ObjectNode object) {
        public String purpose() {
            return object.path("purpose").asText();
        }
    }

    private final Path dir;
    private final ObjectMapper mapper;
    private final Clock clock;

    public FileStore(Path dir, ObjectMapper mapper, Clock clock) {
        this.dir = dir;
        this.mapper = mapper;
        this.clock = clock;
    }

    /** Stores {@code content} as a new file: {@code purpose} is batch for inputs, batch_output for results. */
    public StoredFile create(String filename, String purpose, String owner, byte[] content) {
        String id = Ids.next("file-");
        StateFiles.write(dir.resolve(id + ".jsonl"), content);
        return describe(id, filename, purpose, owner, content.length);
    }

    /**
     * Stores {@code length} bytes of the file {@code source} from {@code start} as a new file, copied from file to file
     * (an upload written to disk as it arrived is never read into the heap).
     */
    public StoredFile create(String filename, String purpose, String owner, Path source, long start, long length) {
        String id = Ids.next("file-");
        StateFiles.copy(source, start, length, dir.resolve(id + ".jsonl"));
        return describe(id, filename, purpose, owner, length);
    }

    private StoredFile describe(String id, String filename, String purpose, String owner, long length) {
        ObjectNode object = mapper.createObjectNode();
        object.put("id", id);
        object.put("object", "file");
        object.put("bytes", length);
        object.put("created_at", clock.instant().getEpochSecond());
        object.putNull("expires_at");
        object.put("filename", filename);
        object.put("purpose", purpose);
        object.put("status", "processed");
        object.putNull("status_details");
        ObjectNode stored = mapper.createObjectNode();
        stored.put("owner", owner);
        stored.set("file", object);
        try {
            StateFiles.write(dir.resolve(id + ".json"), mapper.writeValueAsBytes(stored));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return new StoredFile(id, owner, object);
    }

    /** The file {@code id}, if there is one (ids are checked: nothing outside the store can be named). */
    public Optional<StoredFile> get(String id) {
        if (id == null || !id.matches("file-[0-9a-f]{24}")) {
            return Optional.empty();
        }
        Path meta = dir.resolve(id + ".json");
        if (!Files.exists(meta)) {
            return Optional.empty();
        }
        try {
            ObjectNode stored = (ObjectNode) mapper.readTree(meta.toFile());
            return Optional.of(new StoredFile(id, stored.path("owner").isTextual() ? stored.get("owner").asText() : null,
                    (ObjectNode) stored.get("file")));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + meta, e);
        }
    }

    public byte[] content(String id) {
        try {
            return Files.readAllBytes(dir.resolve(id + ".jsonl"));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read file " + id, e);
        }
    }
}
