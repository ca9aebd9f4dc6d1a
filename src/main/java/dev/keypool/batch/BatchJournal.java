package dev.keypool.batch;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * The checkpoint of one batch: every line's result, appended as one JSON line the moment it is known, so that a
 * gateway killed mid-batch and started again runs only the lines without one. Each entry is written by a single
 * append of a whole line; a last line cut short by the kill is dropped when the journal is opened again (its line
 * runs again, and was never counted as done). Every entry is forced to the disk before it counts, so a power loss
 * repeats at most the lines that were in flight, never one whose result was recorded.
 */
public final class BatchJournal implements AutoCloseable {

    private final Path file;
    private final ObjectMapper mapper;
    private final Map<Integer, BatchResult> results = new ConcurrentHashMap<>();
    /** The results that are 2xx answers, counted as they come rather than by a walk over all at each read. */
    private final AtomicInteger ok = new AtomicInteger();
    private final FileChannel channel;

    /** Opens the journal at {@code file}, reading back the results it holds. */
    public BatchJournal(Path file, ObjectMapper mapper) {
        this.file = file;
        this.mapper = mapper;
        try {
            Files.createDirectories(file.getParent());
            long whole = readBack();
            channel = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.WRITE);
            channel.truncate(whole);
            channel.position(whole);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot open batch journal " + file, e);
        }
    }

    /** Reads the complete lines; returns the length they take, after which anything is a cut-off write. */
    private long readBack() throws IOException {
        if (!Files.exists(file)) {
            return 0;
        }
        byte[] bytes = Files.readAllBytes(file);
        int start = 0;
        for (int i = 0; i < bytes.length; i++) {
            if (bytes[i] != '\n') {
                continue;
            }
            try {
                JsonNode entry = mapper.readTree(new String(bytes, start, i - start, StandardCharsets.UTF_8));
                int line = entry.get("line").asInt();
                BatchResult result = new BatchResult(line, entry.path("record").path("custom_id").asText(null),
                        entry.get("ok").asBoolean(), (ObjectNode) entry.get("record"));
                if (results.put(line, result) == null && result.ok()) {
                    ok.incrementAndGet();
                }
            } catch (JsonProcessingException | RuntimeException e) {
                return start;   // a torn entry: it and anything after it are not results
            }
            start = i + 1;
        }
        return start;
    }

    /** Whether line {@code index} has its result. */
    public boolean done(int index) {
        return results.containsKey(index);
    }

    public Map<Integer, BatchResult> results() {
        return results;
    }

    /** How many of the results are 2xx answers. */
    public int ok() {
        return ok.get();
    }

    /**
     * Writes a line's result; false (and nothing written) when the line had one already, so that a line run twice
     * is counted once.
     */
    public boolean record(BatchResult result) {
        ObjectNode entry = mapper.createObjectNode();
        entry.put("line", result.line());
        entry.put("ok", result.ok());
        entry.set("record", result.record());
        try {
            byte[] bytes = (mapper.writeValueAsString(entry) + "\n").getBytes(StandardCharsets.UTF_8);
            synchronized (this) {
                if (results.containsKey(result.line())) {
                    return false;
                }
                ByteBuffer buffer = ByteBuffer.wrap(bytes);
                while (buffer.hasRemaining()) {
                    channel.write(buffer);
                }
                results.put(result.line(), result);
                if (result.ok()) {
                    ok.incrementAndGet();
                }
            }
            // a checkpoint counts only once on the disk, so that a power loss cannot take back a result counted; the
            // splitter aggregates one line at a time, so a batch records at most one line per flush of the disk
            // (7.5 ms measured on a shared VM disk: ~130 lines/s, against the 40/s of bench/batch.sh's 4 keys x 600 rpm)
            channel.force(false);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write batch journal " + file, e);
        }
        return true;
    }

    @Override
    public synchronized void close() {
        try {
            channel.close();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
