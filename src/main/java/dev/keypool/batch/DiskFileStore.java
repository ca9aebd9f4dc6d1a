package dev.keypool.batch;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.keypool.state.StateFiles;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The files of the batch API (uploaded inputs, output and error files) of this gateway alone, under
 * {@code state.dir/batch/files}: the
 * content as {@code <id>.jsonl} and the OpenAI file object as {@code <id>.json}, with the tenant that owns it. Every
 * file expires, as OpenAI's {@code expires_at} says: after the {@code expires_after} of its upload, else after
 * {@code batch.retention} from its creation; then {@link #expire} deletes it. Each counts in its owner's
 * {@link TenantStorage}; an upload past it is refused before anything is written, a batch's output never is. A file
 * object that cannot be read at startup is logged once and skipped.
 */
public final class DiskFileStore implements FileStore {

    private static final Logger LOG = LoggerFactory.getLogger(DiskFileStore.class);

    private record Kept(StoredFile file, long bytes) {
    }

    private final Path dir;
    private final ObjectMapper mapper;
    private final Clock clock;
    private final BatchLimits limits;
    private final TenantStorage storage;
    private final Map<String, Kept> files = new ConcurrentHashMap<>();

    /** @param storage the bytes of each tenant, counted with the task store's against {@code limits.maxStoredBytes()} */
    public DiskFileStore(Path dir, ObjectMapper mapper, Clock clock, BatchLimits limits, TenantStorage storage) {
        this.dir = dir;
        this.mapper = mapper;
        this.clock = clock;
        this.limits = limits;
        this.storage = storage;
        load();
    }

    @Override
    public StoredFile create(String filename, String purpose, String owner, byte[] content) {
        ObjectNode object = object(filename, purpose, content.length, limits.retention());
        long bytes = content.length + (long) meta(owner, object).length;
        storage.add(owner, bytes);
        return write(owner, object, ByteBuffer.wrap(content), bytes);
    }

    /** A slice of a mapped upload is written from the mapping, never read into the heap. */
    @Override
    public StoredFile upload(String filename, String purpose, String owner, ByteBuffer content, Duration expiresAfter) {
        ObjectNode object = object(filename, purpose, content.remaining(),
                expiresAfter == null ? limits.retention() : expiresAfter);
        long bytes = content.remaining() + (long) meta(owner, object).length;
        if (!storage.reserve(owner, bytes)) {
            throw new StorageLimitException(StorageLimitException.Limit.STORED_BYTES, storage.maxBytes());
        }
        return write(owner, object, content, bytes);
    }

    private ObjectNode object(String filename, String purpose, long size, Duration expiresAfter) {
        return FileStore.object(mapper, filename, purpose, size, clock.instant(), expiresAfter);
    }

    private byte[] meta(String owner, ObjectNode object) {
        ObjectNode stored = mapper.createObjectNode();
        stored.put("owner", owner);
        stored.set("file", object);
        try {
            return mapper.writeValueAsBytes(stored);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private StoredFile write(String owner, ObjectNode object, ByteBuffer content, long bytes) {
        String id = object.get("id").asText();
        StoredFile file = new StoredFile(id, owner, object);
        try {
            // the content first: a file object is there only with its content
            StateFiles.replace(contentFile(id), content);
            StateFiles.replace(metaFile(id), meta(owner, object));
        } catch (IOException e) {
            storage.add(owner, -bytes);
            deleteQuietly(id);
            throw new UncheckedIOException("cannot write file " + id, e);
        }
        files.put(id, new Kept(file, bytes));
        return file;
    }

    /** Ids are checked: nothing outside the directory can be named. */
    @Override
    public Optional<StoredFile> get(String id) {
        if (!FileStore.wellFormed(id)) {
            return Optional.empty();
        }
        Instant now = clock.instant();
        return Optional.ofNullable(files.get(id)).map(Kept::file).filter(f -> now.isBefore(f.expiresAt()));
    }

    @Override
    public byte[] content(String id) {
        try {
            return Files.readAllBytes(contentFile(id));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read file " + id, e);
        }
    }

    @Override
    public boolean delete(String id) {
        Kept kept = id == null ? null : files.remove(id);
        if (kept == null) {
            return false;
        }
        storage.add(kept.file().owner(), -kept.bytes());
        try {
            Files.deleteIfExists(metaFile(id));
            Files.deleteIfExists(contentFile(id));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot delete file " + id, e);
        }
        return true;
    }

    @Override
    public int expire(Set<String> inUse) {
        Instant now = clock.instant();
        int removed = 0;
        for (Kept kept : List.copyOf(files.values())) {
            if (!now.isBefore(kept.file().expiresAt()) && !inUse.contains(kept.file().id()) && delete(kept.file().id())) {
                removed++;
            }
        }
        return removed;
    }

    private Path metaFile(String id) {
        return dir.resolve(id + ".json");
    }

    private Path contentFile(String id) {
        return dir.resolve(id + ".jsonl");
    }

    private void deleteQuietly(String id) {
        try {
            Files.deleteIfExists(metaFile(id));
            Files.deleteIfExists(contentFile(id));
        } catch (IOException e) {
            LOG.warn("File {} half-written and not deleted: {}", id, e.toString());
        }
    }

    private void load() {
        List<Path> listed = StateFiles.readBack(dir);
        for (Path f : listed) {
            String name = f.getFileName().toString();
            if (name.endsWith(".json") && !name.startsWith(".")) {
                try {
                    JsonNode stored = mapper.readTree(f.toFile());
                    ObjectNode object = (ObjectNode) stored.get("file");
                    String id = object.get("id").asText();
                    if (!name.equals(id + ".json") || !Files.exists(contentFile(id))) {
                        throw new IllegalStateException(name.equals(id + ".json") ? "no content" : "names file " + id);
                    }
                    String owner = stored.path("owner").isTextual() ? stored.get("owner").asText() : null;
                    if (object.path("expires_at").isNull()) {
                        // written before files expired: from its creation, as a new one
                        object.put("expires_at", object.path("created_at").asLong() + limits.retention().toSeconds());
                    }
                    long bytes = Files.size(f) + Files.size(contentFile(id));
                    files.put(id, new Kept(new StoredFile(id, owner, object), bytes));
                    storage.add(owner, bytes);
                } catch (IOException | RuntimeException unreadable) {
                    LOG.warn("File object {} cannot be read and is skipped: {}", f, StateFiles.firstLine(unreadable));
                }
            }
        }
        for (Path f : listed) {
            String name = f.getFileName().toString();
            // content whose file object never came: what a crash left half-way
            if (name.endsWith(".jsonl") && !files.containsKey(name.substring(0, name.length() - ".jsonl".length()))
                    && !Files.exists(dir.resolve(name.substring(0, name.length() - 1)))) {
                StateFiles.deleteLeftOver(f);
            }
        }
    }
}
