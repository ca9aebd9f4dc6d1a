package dev.keypool.shared;

import java.io.IOException;
import java.nio.file.Path;
import java.util.concurrent.Executor;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.keypool.admin.RuntimeChanges;
import dev.keypool.admin.RuntimeChangesFile;
import dev.keypool.admin.RuntimeChangesStore;
import dev.keypool.gateway.Channels;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The operators' runtime changes shared through Redis (SPEC §11): kept in {@code state.dir} as by one instance alone,
 * and as the same JSON (fingerprints and channel names only) in {@code <prefix>:admin:changes}, published on the
 * {@code admin} topic. The other instances take them over ({@link RuntimeChanges#takeOver}) and keep them in their own
 * {@code state.dir}; an instance that connects reads them.
 *
 * <p>Redis down: changes are kept in the file only, and this instance remembers it has some Redis does not. Redis back:
 * those are written to Redis and published, since they are an operator's latest word; without such changes this
 * instance takes over what Redis holds (the others' changes meanwhile), or writes its own to a Redis that holds none.
 */
public final class RedisRuntimeChanges implements RuntimeChangesStore {

    private static final Logger LOG = LoggerFactory.getLogger(RedisRuntimeChanges.class);
    private static final String TOPIC = "admin";

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
    // guarded by this
    private boolean unshared;

    /**
     * @param live     the changes in force on this instance, laid over {@code channels}
     */
    public RedisRuntimeChanges(RedisLink redis, RuntimeChangesFile file, RuntimeChanges live, Channels channels) {
        this.redis = redis;
        this.file = file;
        this.live = live;
        this.channels = channels;
        redis.subscribe(TOPIC, json -> takeOvers.execute(() -> takeOver(json)));
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
        String json = changes.toJson(mapper).toString();
        if (redis.call(commands -> commands.set(key(), json)).isPresent()) {
            redis.publish(TOPIC, json);
        } else {
            unshared = true;
        }
    }

    @Override
    public Path path() {
        return file.path();
    }

    private synchronized void takeOver(String json) {
        if (json.equals(live.toJson(mapper).toString())) {
            return;
        }
        try {
            live.takeOver(RuntimeChanges.fromJson(mapper.readTree(json)), channels.all());
            file.write(live);
        } catch (IOException | IllegalArgumentException e) {
            LOG.warn("Runtime changes of another instance not taken over: {}", e.toString());
        }
    }

    private synchronized void writeBack() {
        if (unshared) {
            String json = live.toJson(mapper).toString();
            if (redis.call(commands -> commands.set(key(), json)).isPresent()) {
                redis.publish(TOPIC, json);
                unshared = false;
            }
            return;
        }
        redis.call(commands -> commands.get(key())).ifPresentOrElse(this::takeOver, () -> {
            if (redis.up()) {
                String json = live.toJson(mapper).toString();
                redis.call(commands -> commands.set(key(), json));
            }
        });
    }

    private String key() {
        return redis.key("admin", "changes");
    }
}
