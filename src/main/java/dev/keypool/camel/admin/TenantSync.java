package dev.keypool.camel.admin;

import java.util.concurrent.Executor;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

import dev.keypool.admin.RuntimeTenants;
import dev.keypool.events.RemoteOrigin;
import dev.keypool.redis.RedisLink;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps this instance's tenants in step with the store that all instances share (design §9): the {@code tenants-watch}
 * timer route looks at the store's revision every {@code keypool.tenants.poll-ms}, and with Redis a change made on
 * another instance is announced on the {@code tenants} topic (its name only) and read at once. A store that cannot be
 * read is one WARN; the tenants in force stay as they are meanwhile.
 */
public final class TenantSync {

    private static final Logger LOG = LoggerFactory.getLogger(TenantSync.class);
    static final String TOPIC = "tenants";

    private final RuntimeTenants tenants;
    private final RedisLink redis;
    /** Reads the store off the Redis I/O thread, one read at a time; no thread while idle. */
    private final Executor reads = new ThreadPoolExecutor(0, 1, 1, TimeUnit.SECONDS, new LinkedBlockingQueue<>(), r -> {
        Thread thread = new Thread(r, "keypool-tenants-sync");
        thread.setDaemon(true);
        return thread;
    });
    // guarded by this
    private boolean failing;

    /** @param redis null without Redis: the timer alone notices changes */
    public TenantSync(RuntimeTenants tenants, RedisLink redis) {
        this.tenants = tenants;
        this.redis = redis;
        if (redis != null) {
            // a change another instance announced is its own event there: not one of this instance's
            redis.subscribe(TOPIC, name -> reads.execute(() -> RemoteOrigin.run(this::poll)));
        }
    }

    /** Timer: makes the tenants again if the store moved since. */
    public synchronized void poll() {
        try {
            tenants.refreshIfChanged();
            if (failing) {
                failing = false;
                LOG.info("Tenants: the database answers again");
            }
        } catch (RuntimeException e) {
            if (!failing) {
                failing = true;
                LOG.warn("Tenants: the database cannot be read, the tenants in force stay as they are: {}", e.getMessage());
            }
        }
    }

    /** Tells the other instances that this tenant changed; they read it from the store. */
    public void announce(String tenant) {
        if (redis != null) {
            redis.publish(TOPIC, tenant);
        }
    }
}
