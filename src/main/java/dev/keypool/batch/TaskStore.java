package dev.keypool.batch;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Stream;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.keypool.state.StateFiles;

/**
 * Async tasks, in memory and under {@code state.dir/batch/tasks} (one {@code <id>.json} each), kept for
 * {@code retention} after they were done (or, if never done, after they came) by the gateway's clock. Tasks not
 * yet done when the gateway stopped are read back as queued, to run again.
 */
public final class TaskStore {

    private final Path dir;
    private final ObjectMapper mapper;
    private final Clock clock;
    private final Duration retention;
    private final Map<String, AsyncTask> tasks = new ConcurrentHashMap<>();
    private List<AsyncTask> leftOver;

    public TaskStore(Path dir, ObjectMapper mapper, Clock clock, Duration retention) {
        this.dir = dir;
        this.mapper = mapper;
        this.clock = clock;
        this.retention = retention;
        load();
        leftOver = tasks.values().stream().filter(t -> !t.done()).toList();
    }

    public AsyncTask put(AsyncTask task) {
        tasks.put(task.id(), task);
        ObjectNode stored = mapper.createObjectNode();
        stored.put("owner", task.owner());
        stored.put("endpoint", task.endpoint());
        stored.put("api", task.api());
        stored.put("request", Base64.getEncoder().encodeToString(task.request()));
        stored.set("task", task.toJson(mapper));
        try {
            StateFiles.replace(dir.resolve(task.id() + ".json"), mapper.writeValueAsBytes(stored));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return task;
    }

    /** The task, unless there is none or its retention has passed. */
    public Optional<AsyncTask> get(String id) {
        return Optional.ofNullable(id).map(tasks::get).filter(t -> !expired(t, clock.instant()));
    }

    /**
     * The tasks that were not done when the gateway last stopped, as read at startup; given once, so that they run
     * again once (tasks accepted since are queued already).
     */
    public synchronized List<AsyncTask> leftOver() {
        List<AsyncTask> left = leftOver;
        leftOver = List.of();
        return left;
    }

    /** Forgets the tasks whose retention has passed; returns how many. */
    public int expire() {
        Instant now = clock.instant();
        int removed = 0;
        for (AsyncTask task : List.copyOf(tasks.values())) {
            if (expired(task, now)) {
                tasks.remove(task.id());
                try {
                    Files.deleteIfExists(dir.resolve(task.id() + ".json"));
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
                removed++;
            }
        }
        return removed;
    }

    private boolean expired(AsyncTask task, Instant now) {
        Instant from = task.finishedAt() != null ? task.finishedAt() : task.createdAt();
        return !now.isBefore(from.plus(retention));
    }

    private void load() {
        if (!Files.isDirectory(dir)) {
            return;
        }
        try (Stream<Path> files = Files.list(dir)) {
            files.filter(f -> f.getFileName().toString().endsWith(".json")).forEach(f -> {
                try {
                    JsonNode stored = mapper.readTree(f.toFile());
                    JsonNode t = stored.get("task");
                    JsonNode response = t.get("response");
                    boolean done = t.get("completed_at").isNumber();
                    AsyncTask task = new AsyncTask(t.get("id").asText(),
                            stored.path("owner").isTextual() ? stored.get("owner").asText() : null,
                            stored.get("endpoint").asText(), stored.get("api").asText(),
                            Base64.getDecoder().decode(stored.get("request").asText()),
                            Instant.ofEpochSecond(t.get("created_at").asLong()),
                            done ? TaskStatus.valueOf(t.get("status").asText().toUpperCase(java.util.Locale.ROOT)) : TaskStatus.QUEUED,
                            response == null || response.isNull() ? null : response,
                            done ? Instant.ofEpochSecond(t.get("completed_at").asLong()) : null);
                    tasks.put(task.id(), task);
                } catch (IOException e) {
                    throw new UncheckedIOException("cannot read task " + f, e);
                }
            });
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read tasks in " + dir, e);
        }
    }
}
