package dev.keypool.batch;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.util.Base64;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.keypool.state.StateFiles;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The async tasks of this gateway alone, under {@code state.dir/batch/tasks}: each as {@code <id>.json} (the task
 * object, its owner and, once done, its answer) and, until it is done, its request as {@code <id>.request}. Memory holds only what a task is and
 * where it stands; requests and answers stay on disk. A task is kept for {@code batch.retention} after it was done (or, if
 * never done, after it came) by the gateway's clock; tasks not yet done when the gateway stopped are read back as
 * queued and under no lease, to be claimed and run again.
 * <p>
 * Per tenant, at most {@code batch.max-queued-tasks} tasks wait or run, and a new one must fit in its {@link TenantStorage}: both
 * are decided before anything is written. A file that cannot be read at startup is logged once and skipped.
 */
public final class DiskTaskStore implements TaskStore {

    private static final Logger LOG = LoggerFactory.getLogger(DiskTaskStore.class);
    private static final String NO_TENANT = "";

    /** A task as memory keeps it (no request, no answer) and the bytes its files take. */
    private record Kept(AsyncTask task, long bytes) {
    }

    private final Path dir;
    private final ObjectMapper mapper;
    private final Clock clock;
    private final BatchLimits limits;
    private final TenantStorage storage;
    private final Map<String, Kept> tasks = new ConcurrentHashMap<>();
    /** Tasks of each tenant not done yet; guarded by this. */
    private final Map<String, Integer> pending = new HashMap<>();
    private final Leases leases = new Leases();

    /** @param storage the bytes of each tenant, counted with the file store's against {@code limits.maxStoredBytes()} */
    public DiskTaskStore(Path dir, ObjectMapper mapper, Clock clock, BatchLimits limits, TenantStorage storage) {
        this.dir = dir;
        this.mapper = mapper;
        this.clock = clock;
        this.limits = limits;
        this.storage = storage;
        load();
    }

    @Override
    public AsyncTask submit(String owner, String endpoint, String api, byte[] request, Claimant claimant) {
        Instant now = clock.instant();
        AsyncTask task = AsyncTask.queued(owner, endpoint, api, null, now);
        byte[] json = stored(task);
        long bytes = json.length + (long) request.length;
        synchronized (this) {
            if (pending.getOrDefault(key(owner), 0) >= limits.maxQueuedTasks()) {
                throw new StorageLimitException(StorageLimitException.Limit.QUEUED_TASKS, limits.maxQueuedTasks());
            }
            if (!storage.reserve(owner, bytes)) {
                throw new StorageLimitException(StorageLimitException.Limit.STORED_BYTES, storage.maxBytes());
            }
            pending.merge(key(owner), 1, Integer::sum);
            tasks.put(task.id(), new Kept(task, bytes));
        }
        leases.claim(task.id(), claimant.id(), now, claimant.leaseUntil(now));
        try {
            // the request first: a task file is there only with its request
            StateFiles.replace(requestFile(task.id()), request);
            StateFiles.replace(taskFile(task.id()), json);
        } catch (IOException e) {
            forget(task.id());
            throw new UncheckedIOException("cannot write task " + task.id(), e);
        }
        return task;
    }

    @Override
    public void checkRoom(String owner, long bytes) {
        synchronized (this) {
            if (pending.getOrDefault(key(owner), 0) >= limits.maxQueuedTasks()) {
                throw new StorageLimitException(StorageLimitException.Limit.QUEUED_TASKS, limits.maxQueuedTasks());
            }
        }
        if (storage.used(owner) + bytes > storage.maxBytes()) {
            throw new StorageLimitException(StorageLimitException.Limit.STORED_BYTES, storage.maxBytes());
        }
    }

    @Override
    public byte[] request(String id) {
        try {
            return Files.readAllBytes(requestFile(id));
        } catch (NoSuchFileException beforeSplit) {
            return legacyRequest(id);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the request of task " + id, e);
        }
    }

    /** Not written: a task not done is queued again after a restart. */
    @Override
    public Optional<AsyncTask> start(String id, Claimant claimant) {
        Instant now = clock.instant();
        Kept known = tasks.get(id);
        if (known == null || known.task().done() || !leases.claim(id, claimant.id(), now, claimant.leaseUntil(now))) {
            return Optional.empty();
        }
        Kept kept = tasks.computeIfPresent(id, (k, t) -> t.task().done() ? t : new Kept(t.task().started(), t.bytes()));
        return Optional.ofNullable(kept).map(Kept::task).filter(t -> !t.done());
    }

    /** Written with its answer, its request deleted. */
    @Override
    public Optional<AsyncTask> finish(String id, int statusCode, JsonNode body) {
        Kept kept = tasks.get(id);
        if (kept == null || kept.task().done()) {
            return Optional.empty();
        }
        AsyncTask done = kept.task().finished(statusCode, body, clock.instant(), mapper);
        byte[] json = stored(done);
        try {
            StateFiles.replace(taskFile(id), json);
            Files.deleteIfExists(requestFile(id));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write task " + id, e);
        }
        AsyncTask light = new AsyncTask(done.id(), done.owner(), done.endpoint(), done.api(), null, done.createdAt(),
                done.status(), null, done.finishedAt());
        synchronized (this) {
            if (tasks.replace(id, kept, new Kept(light, json.length))) {
                pending.merge(key(done.owner()), -1, Integer::sum);
                storage.add(done.owner(), json.length - kept.bytes());
            }
        }
        leases.forget(id);
        return Optional.of(done);
    }

    @Override
    public Optional<AsyncTask> get(String id) {
        Kept kept = id == null ? null : tasks.get(id);
        if (kept == null || expired(kept.task(), clock.instant())) {
            return Optional.empty();
        }
        AsyncTask task = kept.task();
        if (!task.done()) {
            return Optional.of(task);
        }
        try {
            JsonNode response = mapper.readTree(taskFile(id).toFile()).path("task").get("response");
            return Optional.of(new AsyncTask(task.id(), task.owner(), task.endpoint(), task.api(), null,
                    task.createdAt(), task.status(), response, task.finishedAt()));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read task " + id, e);
        }
    }

    @Override
    public void renew(Claimant claimant, Instant now) {
        leases.renew(claimant.id(), claimant.leaseUntil(now));
    }

    @Override
    public int release(Claimant claimant) {
        return leases.release(claimant.id());
    }

    @Override
    public List<String> claim(Claimant claimant, Instant now, int max) {
        return tasks.values().stream().map(Kept::task).filter(t -> !t.done())
                .filter(t -> leases.claimable(t.id(), claimant.id(), now))
                .sorted(Comparator.comparing(AsyncTask::createdAt)).limit(max)
                .filter(t -> leases.claim(t.id(), claimant.id(), now, claimant.leaseUntil(now)))
                .map(AsyncTask::id).toList();
    }

    /** Deletes their files too. */
    @Override
    public int expire() {
        Instant now = clock.instant();
        int removed = 0;
        for (Kept kept : List.copyOf(tasks.values())) {
            if (expired(kept.task(), now) && forget(kept.task().id())) {
                removed++;
            }
        }
        return removed;
    }

    private boolean forget(String id) {
        Kept kept;
        synchronized (this) {
            kept = tasks.remove(id);
            if (kept == null) {
                return false;
            }
            if (!kept.task().done()) {
                pending.merge(key(kept.task().owner()), -1, Integer::sum);
            }
            storage.add(kept.task().owner(), -kept.bytes());
        }
        leases.forget(id);
        try {
            Files.deleteIfExists(taskFile(id));
            Files.deleteIfExists(requestFile(id));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot delete task " + id, e);
        }
        return true;
    }

    private boolean expired(AsyncTask task, Instant now) {
        Instant from = task.finishedAt() != null ? task.finishedAt() : task.createdAt();
        return !now.isBefore(from.plus(limits.retention()));
    }

    private byte[] stored(AsyncTask task) {
        ObjectNode stored = mapper.createObjectNode();
        stored.put("owner", task.owner());
        stored.put("endpoint", task.endpoint());
        stored.put("api", task.api());
        stored.set("task", task.toJson(mapper));
        try {
            return mapper.writeValueAsBytes(stored);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private Path taskFile(String id) {
        return dir.resolve(id + ".json");
    }

    private Path requestFile(String id) {
        return dir.resolve(id + ".request");
    }

    /** Tasks written before requests had a file of their own carry theirs in the task file, base64. */
    private byte[] legacyRequest(String id) {
        try {
            JsonNode request = mapper.readTree(taskFile(id).toFile()).get("request");
            if (request == null || !request.isTextual()) {
                throw new IllegalStateException("task " + id + " has no request");
            }
            return Base64.getDecoder().decode(request.asText());
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the request of task " + id, e);
        }
    }

    private static String key(String owner) {
        return owner == null ? NO_TENANT : owner;
    }

    private void load() {
        List<Path> files = StateFiles.readBack(dir);
        for (Path f : files) {
            String name = f.getFileName().toString();
            if (name.endsWith(".json") && !name.startsWith(".")) {
                loadTask(f);
            }
        }
        for (Path f : files) {
            String name = f.getFileName().toString();
            // a request whose task file never came or is done: what a crash left half-way
            if (name.endsWith(".request") && !tasksNotDone(name.substring(0, name.length() - ".request".length()))) {
                StateFiles.deleteLeftOver(f);
            }
        }
    }

    private boolean tasksNotDone(String id) {
        Kept kept = tasks.get(id);
        return kept != null && !kept.task().done();
    }

    private void loadTask(Path f) {
        try {
            JsonNode stored = mapper.readTree(f.toFile());
            JsonNode t = stored.get("task");
            boolean done = t.get("completed_at").isNumber();
            String id = t.get("id").asText();
            if (!f.getFileName().toString().equals(id + ".json")) {
                throw new IllegalStateException("names task " + id);
            }
            long bytes = Files.size(f);
            if (!done) {
                if (Files.exists(requestFile(id))) {
                    bytes += Files.size(requestFile(id));
                } else if (!stored.path("request").isTextual()) {
                    throw new IllegalStateException("no request");
                }
            }
            AsyncTask task = new AsyncTask(id,
                    stored.path("owner").isTextual() ? stored.get("owner").asText() : null,
                    stored.get("endpoint").asText(), stored.get("api").asText(), null,
                    Instant.ofEpochSecond(t.get("created_at").asLong()),
                    done ? TaskStatus.valueOf(t.get("status").asText().toUpperCase(Locale.ROOT)) : TaskStatus.QUEUED,
                    null, done ? Instant.ofEpochSecond(t.get("completed_at").asLong()) : null);
            tasks.put(id, new Kept(task, bytes));
            storage.add(task.owner(), bytes);
            if (!done) {
                pending.merge(key(task.owner()), 1, Integer::sum);
            }
        } catch (IOException | RuntimeException unreadable) {
            LOG.warn("Task file {} cannot be read and is skipped: {}", f, StateFiles.firstLine(unreadable));
        }
    }
}
