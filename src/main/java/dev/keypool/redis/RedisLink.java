package dev.keypool.redis;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import java.util.function.Function;

import dev.keypool.config.RedisConfig;
import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisException;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.RedisNoScriptException;
import io.lettuce.core.RedisURI;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.TimeoutOptions;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.async.RedisAsyncCommands;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.pubsub.RedisPubSubAdapter;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * This instance's connection to the Redis that gateway instances share (design §11), and what it does when Redis goes
 * away. Every call is bounded by {@code redis.timeout}; a call that fails or is slower marks Redis down (one WARN), and
 * from then on no call is tried until {@link #check()} finds Redis answering again (one INFO): the shared stores go on
 * with their local state meanwhile, and write it back through their {@link #onConnect} handlers when Redis returns.
 * A Redis that came back empty (restarted, flushed) is noticed by this instance's sentinel key being gone, and is
 * written back the same way.
 * <p>
 * Changes are announced to the other instances on pub/sub topics; an instance never hears its own messages.
 * Thread-safe.
 */
public final class RedisLink implements SharedState, AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(RedisLink.class);
    /** The longest a stop waits for the Redis client to close its connections and threads. */
    private static final Duration SHUTDOWN_WAIT = Duration.ofSeconds(5);
    /** How long the sentinel outlives its instance; {@link #check()} renews it every half second. */
    private static final Duration SENTINEL_TTL = Duration.ofSeconds(10);
    /** The TCP and handshake bound: a busy JVM can take longer than {@code redis.timeout} to open a connection. */
    private static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(2);

    private enum Link { NEVER_CONNECTED, UP, DOWN }

    private final RedisConfig config;
    private final String instance;
    private final RedisClient client;
    private final String sentinel;
    private final List<Runnable> onConnect = new CopyOnWriteArrayList<>();
    private final Map<String, List<Consumer<String>>> subscribers = new ConcurrentHashMap<>();
    private volatile StatefulRedisConnection<String, String> connection;
    private volatile StatefulRedisPubSubConnection<String, String> pubSub;
    private final AtomicReference<Link> link = new AtomicReference<>(Link.NEVER_CONNECTED);
    /** {@link #aloneSince} while Redis answers. */
    private static final long SHARED = Long.MIN_VALUE;
    /** Since when this instance goes on alone (System.nanoTime), or SHARED while Redis answers; alone until first connected. */
    private final AtomicLong aloneSince = new AtomicLong(System.nanoTime());
    /** The time alone of the stretches that ended, in ns. */
    private final AtomicLong aloneBefore = new AtomicLong();

    /** Connects on the first {@link #check()}. */
    public RedisLink(RedisConfig config) {
        this.config = Objects.requireNonNull(config, "config");
        this.instance = UUID.randomUUID().toString().replace("-", "").substring(0, 12);
        this.sentinel = key("instance", instance);
        RedisURI uri = RedisURI.create(config.url());
        uri.setTimeout(CONNECT_TIMEOUT);
        this.client = RedisClient.create(uri);
        client.setOptions(ClientOptions.builder()
                .autoReconnect(true)
                // while disconnected a command fails at once instead of waiting out its timeout in a buffer
                .disconnectedBehavior(ClientOptions.DisconnectedBehavior.REJECT_COMMANDS)
                .timeoutOptions(TimeoutOptions.enabled(config.timeout()))
                .build());
    }

    /** This instance's name among those sharing the Redis (random per start). */
    public String instance() {
        return instance;
    }

    /** A Redis key under {@code redis.keyPrefix}: {@code keypool:part1:part2…}. Parts must hold no secret. */
    public String key(String... parts) {
        return config.keyPrefix() + ":" + String.join(":", parts);
    }

    @Override
    public Duration aloneFor() {
        long since = aloneSince.get();
        return since == SHARED ? Duration.ZERO : Duration.ofNanos(System.nanoTime() - since);
    }

    @Override
    public Duration aloneInTotal() {
        return Duration.ofNanos(aloneBefore.get()).plus(aloneFor());
    }

    /** Whether calls go to Redis now; when not, they answer empty at once. */
    public boolean up() {
        return link.get() == Link.UP;
    }

    /**
     * Runs {@code handler} every time Redis becomes reachable: at the first connection, when it answers again after
     * being down, and when it came back empty. The handler writes this instance's state back and reads the others';
     * it runs on the thread of {@link #check()}. Its own calls reach Redis, and so may requests' calls meanwhile.
     */
    public void onConnect(Runnable handler) {
        onConnect.add(Objects.requireNonNull(handler, "handler"));
    }

    /**
     * Runs one or more commands on the shared connection.
     *
     * @return the command's result; empty when Redis is down (no call is made), when the call failed or timed out
     *         (Redis is then down), or when the command answered null
     */
    public <T> Optional<T> call(Function<RedisCommands<String, String>, T> command) {
        StatefulRedisConnection<String, String> c = connection;
        if (link.get() != Link.UP || c == null) {
            return Optional.empty();
        }
        try {
            return Optional.ofNullable(command.apply(c.sync()));
        } catch (RedisException e) {
            down(e);
            return Optional.empty();
        } catch (RuntimeException e) {
            // an answer that did not read as expected: this call has none, Redis itself is fine
            LOG.warn("Redis answer not understood, this call goes on with local state: {}", e.toString());
            return Optional.empty();
        }
    }

    /** Like {@link #call} without waiting for the answer: for writes nobody waits on (a failure marks Redis down). */
    public void send(Function<RedisAsyncCommands<String, String>, RedisFuture<?>> command) {
        StatefulRedisConnection<String, String> c = connection;
        if (link.get() != Link.UP || c == null) {
            return;
        }
        try {
            RedisFuture<?> sent = command.apply(c.async());
            if (sent != null) {
                sent.whenComplete((result, failure) -> {
                    if (failure instanceof RedisException e) {
                        down(e);
                    }
                });
            }
        } catch (RedisException e) {
            down(e);
        } catch (RuntimeException e) {
            LOG.warn("Redis write not sent, this instance keeps its local state: {}", e.toString());
        }
    }

    /** Runs {@code script} atomically in Redis, loading it first when Redis does not know it (a restart forgets). */
    public <T> Optional<T> eval(RedisScript script, ScriptOutputType type, String[] keys, String... args) {
        return call(redis -> {
            try {
                return redis.<T>evalsha(script.sha(), type, keys, args);
            } catch (RedisNoScriptException e) {
                redis.scriptLoad(script.lua());
                return redis.<T>evalsha(script.sha(), type, keys, args);
            }
        });
    }

    /** Tells every other instance listening on {@code topic}; lost when Redis is down. */
    public void publish(String topic, String message) {
        send(redis -> redis.publish(key("events", topic), instance + " " + message));
    }

    /** {@code listener} hears every message another instance publishes on {@code topic}, on a Redis I/O thread. */
    public void subscribe(String topic, Consumer<String> listener) {
        String channel = key("events", topic);
        boolean first = subscribers.computeIfAbsent(channel, c -> new CopyOnWriteArrayList<>()).isEmpty();
        subscribers.get(channel).add(Objects.requireNonNull(listener, "listener"));
        StatefulRedisPubSubConnection<String, String> p = pubSub;
        if (first && p != null) {
            try {
                p.sync().subscribe(channel);
            } catch (RedisException e) {
                down(e);
            }
        }
    }

    /**
     * Connects when not connected; renews this instance's sentinel when connected. Redis answering again after being
     * down, or answering without the sentinel (it lost its data), runs the {@link #onConnect} handlers.
     */
    @Override
    public synchronized void check() {
        try {
            if (connection == null) {
                connect();
                reconnected(link.get() == Link.NEVER_CONNECTED ? "connected" : "reachable again");
                return;
            }
            boolean sentinelThere = connection.sync().pexpire(sentinel, SENTINEL_TTL.toMillis());
            if (link.get() == Link.DOWN) {
                // the subscriptions come back with the pub/sub connection, and its PING is answered after them: no
                // message another instance publishes after the write-back below is missed
                pubSub.sync().ping();
                reconnected("reachable again");
            } else if (!sentinelThere) {
                reconnected("back without this instance's state (restarted or flushed)");
            }
        } catch (RedisException e) {
            down(e);
        }
    }

    private void connect() {
        StatefulRedisConnection<String, String> c = client.connect();
        StatefulRedisPubSubConnection<String, String> p;
        try {
            p = client.connectPubSub();
        } catch (RedisException e) {
            c.close();
            throw e;
        }
        p.addListener(new RedisPubSubAdapter<>() {
            @Override
            public void message(String channel, String message) {
                deliver(channel, message);
            }
        });
        if (!subscribers.isEmpty()) {
            p.sync().subscribe(subscribers.keySet().toArray(String[]::new));
        }
        connection = c;
        pubSub = p;
    }

    /** Writes back and reads (the handlers), then lets calls through. */
    private void reconnected(String how) {
        boolean wasDown = link.get() == Link.DOWN;
        // the handlers' own calls must reach Redis
        link.set(Link.UP);
        for (Runnable handler : onConnect) {
            try {
                handler.run();
            } catch (RuntimeException e) {
                // one store's state that does not read back must not keep the others, or the startup, from going on
                LOG.warn("Shared state not fully written back or read: {}", e.toString());
            }
            if (link.get() != Link.UP) {
                // a handler's call failed: Redis is down again, and the next check tries anew
                return;
            }
        }
        connection.sync().psetex(sentinel, SENTINEL_TTL.toMillis(), "1");
        long since = aloneSince.getAndSet(SHARED);
        if (since != SHARED) {
            aloneBefore.addAndGet(System.nanoTime() - since);
        }
        if (wasDown || how.startsWith("back")) {
            LOG.info("Redis at {} {}: this instance's state written back, state shared again", config.safeUrl(), how);
        } else {
            LOG.info("Redis at {} connected: state shared with the other instances as {}", config.safeUrl(), instance);
        }
    }

    private void down(RedisException cause) {
        Link before = link.getAndSet(Link.DOWN);
        aloneSince.compareAndSet(SHARED, System.nanoTime());
        if (before != Link.DOWN) {
            LOG.warn("Redis at {} unreachable or slower than {} ({}): this instance goes on with its local state until "
                    + "Redis answers again", config.safeUrl(), config.timeout(), describe(cause));
        }
    }

    private void deliver(String channel, String message) {
        int space = message.indexOf(' ');
        if (space < 0 || message.substring(0, space).equals(instance)) {
            return;
        }
        String payload = message.substring(space + 1);
        for (Consumer<String> listener : subscribers.getOrDefault(channel, List.of())) {
            try {
                listener.accept(payload);
            } catch (RuntimeException e) {
                LOG.warn("Shared state message on {} not applied: {}", channel, e.toString());
            }
        }
    }

    private static String describe(RedisException e) {
        Throwable root = e;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        return root == e ? e.getClass().getSimpleName() + ": " + e.getMessage()
                : e.getClass().getSimpleName() + ": " + e.getMessage() + " / " + root.getClass().getSimpleName();
    }

    @Override
    public void close() {
        StatefulRedisPubSubConnection<String, String> p = pubSub;
        StatefulRedisConnection<String, String> c = connection;
        if (p != null) {
            p.close();
        }
        if (c != null) {
            try {
                c.sync().del(sentinel);
            } catch (RedisException e) {
                // going away anyway; the sentinel expires by itself
            }
            c.close();
        }
        // Lettuce's own shutdown(...) waits for its future without a bound, and that future can stay incomplete after
        // every Lettuce thread is gone: a gateway that stops must not hang on it
        try {
            client.shutdownAsync(0, 2, TimeUnit.SECONDS).get(SHUTDOWN_WAIT.toMillis(), TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            LOG.warn("The Redis client did not shut down within {}; stopping without waiting for it", SHUTDOWN_WAIT);
        } catch (ExecutionException e) {
            LOG.warn("The Redis client's shutdown failed: {}", e.getCause().toString());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
