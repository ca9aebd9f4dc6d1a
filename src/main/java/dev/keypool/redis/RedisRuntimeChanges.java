package dev.keypool.redis;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Executor;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.keypool.admin.RuntimeChanges;
import dev.keypool.admin.RuntimeChangesFile;
import dev.keypool.admin.RuntimeChangesStore;
import dev.keypool.events.RemoteOrigin;
import dev.keypool.gateway.Channels;
import dev.keypool.state.StateFiles;
import io.lettuce.core.ScriptOutputType;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The operators' runtime changes shared through Redis (design §11): kept in {@code state.dir} as by one instance alone,
 * and as the same JSON (fingerprints and channel names only) in {@code <prefix>:admin:changes}, published on the
 * {@code admin} topic. The other instances take them over ({@link RuntimeChanges#takeOver}) and keep them in their own
 * {@code state.dir}; an instance that connects reads them.
 *
 * <p>A write sends only the entries it changed (a key's hold or tuning, a channel's forced breaker), merged into the
 * stored changes by a script that publishes the result: two operators acting on two instances in the same moment, or
 * during the same Redis outage, both keep their change.
 *
 * <p>Redis down: changes are kept in the file only, and this instance remembers it has some Redis does not. Redis back:
 * the entries it changed meanwhile are merged in and published, since they are an operator's latest word; without
 * such changes this instance takes over what Redis holds (the others' changes meanwhile), or writes its own to a
 * Redis that holds none.
 */
public final class RedisRuntimeChanges implements RuntimeChangesStore {

    private static final Logger LOG = LoggerFactory.getLogger(RedisRuntimeChanges.class);
    private static final String TOPIC = "admin";
    /** The sections of the changes whose entries are merged one by one. */
    private static final List<String> SECTIONS = List.of("keys", "breakers");

    /**
     * KEYS: 1 the changes (JSON), 2 the events channel; ARGV: 1 the entries a write changed, {"keys": {"<id>": entry or
     * false for one removed}, "breakers": {…}}, 2 the writing instance, 3 entries to add only where the stored changes
     * have none (same form). Answers and publishes the changes merged.
     */
    static final RedisScript MERGE = RedisScript.of("admin-changes-merge", """
            local stored = redis.call('GET', KEYS[1])
            local changes = stored and cjson.decode(stored) or {version = 1}
            for section, entries in pairs(cjson.decode(ARGV[1])) do
              if type(changes[section]) ~= 'table' then
                changes[section] = {}
              end
              for id, entry in pairs(entries) do
                if entry == false then
                  changes[section][id] = nil
                else
                  changes[section][id] = entry
                end
              end
            end
            for section, entries in pairs(cjson.decode(ARGV[3])) do
              if type(changes[section]) ~= 'table' then
                changes[section] = {}
              end
              for id, entry in pairs(entries) do
                if changes[section][id] == nil then
                  changes[section][id] = entry
                end
              end
            end
            local merged = cjson.encode(changes)
            redis.call('SET', KEYS[1], merged)
            redis.call('PUBLISH', KEYS[2], ARGV[2] .. ' ' .. merged)
            return merged
            """);

    private final RedisLink redis;
    private final RuntimeChangesFile file;
    private final RuntimeChanges live;
    private final Channels channels;
    private final ObjectMapper mapper = new ObjectMapper();
    /** Takes over the others' changes off the Redis I/O thread, one after the other; no thread while idle. */
    private final Executor takeOvers = new ThreadPoolExecutor(0, 1, 1, TimeUnit.SECONDS, new LinkedBlockingQueue<>(), r -> {
        Thread thread = new Thread(r, "keypool-admin-changes");
        thread.setDaemon(true);
        return thread;
    });
    /**
     * While this instance has changes Redis has not seen: the shared changes they differ from, kept next to admin.json,
     * so that a restart before Redis returns still shares them as changes, not as an old view of them.
     */
    private final Path unsharedBase;
    // guarded by this
    private boolean unshared;
    /** The changes as this instance last wrote them to Redis or took them over: what its next write differs from. */
    private ObjectNode shared;

    /**
     * @param live     the changes in force on this instance, laid over {@code channels}
     */
    public RedisRuntimeChanges(RedisLink redis, RuntimeChangesFile file, RuntimeChanges live, Channels channels) {
        this.redis = redis;
        this.file = file;
        this.live = live;
        this.channels = channels;
        this.unsharedBase = file.path().resolveSibling("admin.unshared-base.json");
        this.shared = readUnsharedBase().orElseGet(() -> live.toJson(mapper));
        this.unshared = Files.exists(unsharedBase);
        redis.subscribe(TOPIC, json -> takeOvers.execute(() -> heard(json)));
        redis.onConnect(this::writeBack);
    }

    @Override
    public RuntimeChanges read() {
        return file.read();
    }

    /** Into the file, then to Redis and the other instances; remembered as unshared when Redis cannot take it. */
    @Override
    public synchronized void write(RuntimeChanges changes) throws IOException {
        file.write(changes);
        if (!share(changes.toJson(mapper), false)) {
            markUnshared();
        }
    }

    private void markUnshared() throws IOException {
        if (!unshared) {
            StateFiles.replace(unsharedBase, mapper.writeValueAsBytes(shared));
            unshared = true;
        }
    }

    private void markShared() {
        unshared = false;
        try {
            Files.deleteIfExists(unsharedBase);
        } catch (IOException e) {
            LOG.warn("{} not removed: {}", unsharedBase, e.toString());
        }
    }

    private Optional<ObjectNode> readUnsharedBase() {
        try {
            return Optional.of(RuntimeChanges.fromJson(mapper.readTree(Files.readAllBytes(unsharedBase))).toJson(mapper));
        } catch (NoSuchFileException none) {
            return Optional.empty();
        } catch (IOException | RuntimeException unreadable) {
            LOG.warn("{} ignored: {}", unsharedBase, unreadable.toString());
            return Optional.empty();
        }
    }

    @Override
    public Path path() {
        return file.path();
    }

    /**
     * Merges the entries {@code changes} differ in from the last shared ones into Redis (published to the others), and
     * takes over what the merge holds besides; with {@code fill}, its other entries too where Redis holds none (a
     * Redis that lost them). False when Redis cannot take them.
     */
    private boolean share(ObjectNode changes, boolean fill) {
        ObjectNode diff = changedSince(shared, changes);
        ObjectNode rest = mapper.createObjectNode();
        for (String section : SECTIONS) {
            ObjectNode others = rest.putObject(section);
            if (fill) {
                changes.path(section).fields().forEachRemaining(e -> {
                    if (!diff.path(section).has(e.getKey())) {
                        others.set(e.getKey(), e.getValue());
                    }
                });
            }
        }
        Optional<String> merged = redis.eval(MERGE, ScriptOutputType.VALUE,
                new String[] {key(), redis.key("events", TOPIC)}, diff.toString(), redis.instance(), rest.toString());
        merged.ifPresent(this::adopt);
        return merged.isPresent();
    }

    /**
     * The entries {@code changes} set, changed or removed since {@code base}, as the merge script takes them:
     * {@code {"keys": {"<id>": entry, or false when removed}, "breakers": {…}}}.
     */
    private ObjectNode changedSince(ObjectNode base, ObjectNode changes) {
        ObjectNode diff = mapper.createObjectNode();
        for (String section : SECTIONS) {
            JsonNode before = base.path(section);
            JsonNode after = changes.path(section);
            ObjectNode entries = diff.putObject(section);
            after.fields().forEachRemaining(e -> {
                if (!e.getValue().equals(before.get(e.getKey()))) {
                    entries.set(e.getKey(), e.getValue());
                }
            });
            before.fieldNames().forEachRemaining(id -> {
                if (!after.has(id)) {
                    entries.put(id, false);
                }
            });
        }
        return diff;
    }

    /**
     * Another instance changed something: what Redis holds now is taken over (read again rather than the message's
     * copy, which may arrive after this instance's own later merge), or, with changes of this one Redis has not seen,
     * those are merged first.
     */
    private synchronized void heard(String message) {
        writeBack();
    }

    /**
     * Takes over the changes Redis holds, but for the entries changed here since they were last shared: an operator's
     * change made on this instance a moment ago, not yet written, is not undone by another's.
     */
    private synchronized void adopt(String json) {
        try {
            ObjectNode stored = RuntimeChanges.fromJson(mapper.readTree(json)).toJson(mapper);
            ObjectNode mine = live.toJson(mapper);
            // what the merge script does with a write's entries, with those changed here since last shared
            ObjectNode merged = stored.deepCopy();
            changedSince(shared, mine).fields().forEachRemaining(section -> {
                ObjectNode target = merged.withObject("/" + section.getKey());
                section.getValue().fields().forEachRemaining(entry -> {
                    if (entry.getValue().isBoolean()) {
                        target.remove(entry.getKey());
                    } else {
                        target.set(entry.getKey(), entry.getValue());
                    }
                });
            });
            shared = stored;
            if (merged.equals(mine)) {
                return;
            }
            // the changes it makes here were made on another instance first, which tells their events
            RemoteOrigin.run(() -> live.takeOver(RuntimeChanges.fromJson(merged), channels.all()));
            file.write(live);
        } catch (IOException | IllegalArgumentException e) {
            LOG.warn("Runtime changes of another instance not taken over: {}", e.toString());
        }
    }

    private synchronized void writeBack() {
        Optional<String> stored = redis.call(commands -> commands.get(key()));
        if (stored.isEmpty()) {
            // a Redis that holds none (new, or restarted empty): what changed here, and the rest where no other
            // instance has written it meanwhile
            if (redis.up() && share(live.toJson(mapper), true)) {
                markShared();
            }
        } else if (unshared) {
            // the entries changed here while Redis was away, merged with what the others changed meanwhile
            if (share(live.toJson(mapper), false)) {
                markShared();
            }
        } else {
            adopt(stored.get());
        }
    }

    private String key() {
        return redis.key("admin", "changes");
    }
}
