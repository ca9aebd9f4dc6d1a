package dev.keypool.redis;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.Executor;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import java.util.stream.Collectors;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.keypool.admin.Cluster;
import dev.keypool.admin.Member;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The instances sharing this Redis (design §11). Each one's heartbeat is a field of the hash
 * {@code <prefix>:cluster:members} (its id, version, start, last beat, requests in flight, config digest), written and
 * read back on every beat; an instance silent for {@link Member#MISSED_BEATS} beats is gone, and one gone for
 * {@link #FORGOTTEN_AFTER} is removed. When the live instances run different keypool.yaml files (their digests), each
 * logs one WARN, and one INFO once they agree again.
 * <p>
 * A reload of every instance is asked on the {@code reload} topic (a request id); each instance reloads, on a thread of
 * its own, and pushes its answer to the list {@code <prefix>:reload:<request id>}, which the asking one reads until every
 * live instance answered or the wait is over. Redis down: this instance knows only itself, and reloads alone.
 */
public final class RedisCluster implements Cluster {

    private static final Logger LOG = LoggerFactory.getLogger(RedisCluster.class);
    private static final String TOPIC = "reload";
    /** How long a gone instance stays listed, so that an operator sees which one went. */
    static final Duration FORGOTTEN_AFTER = Duration.ofHours(1);
    /** How long a reload's answers are kept after the last one came: the asking instance reads them at once. */
    private static final Duration REPLIES_KEPT = Duration.ofMinutes(1);
    private static final Duration POLL = Duration.ofMillis(25);

    private final RedisLink redis;
    private final Supplier<Member> self;
    private final Clock clock;
    private final ObjectMapper mapper = new ObjectMapper();
    /** Reloads asked by another instance, one after the other, off the Redis I/O thread; no thread while idle. */
    private final Executor reloads = new ThreadPoolExecutor(0, 1, 1, TimeUnit.SECONDS, new LinkedBlockingQueue<>(), r -> {
        Thread thread = new Thread(r, "keypool-cluster-reload");
        thread.setDaemon(true);
        return thread;
    });
    private volatile List<Member> others = List.of();
    private volatile Supplier<ReloadReply> reload;
    // guarded by this
    private Set<String> digestsWarned = Set.of();

    /** @param self this instance as it is now (its heartbeat's fields; {@code lastHeartbeat} is now) */
    public RedisCluster(RedisLink redis, Supplier<Member> self, Clock clock) {
        this.redis = Objects.requireNonNull(redis, "redis");
        this.self = Objects.requireNonNull(self, "self");
        this.clock = Objects.requireNonNull(clock, "clock");
        redis.subscribe(TOPIC, requestId -> reloads.execute(() -> answer(requestId)));
    }

    @Override
    public String instance() {
        return self.get().id();
    }

    @Override
    public boolean shared() {
        return true;
    }

    @Override
    public synchronized void heartbeat() {
        Member me = self.get();
        String key = redis.key("cluster", "members");
        if (redis.call(commands -> commands.hset(key, me.id(), json(me).toString())).isEmpty()) {
            others = List.of();
            return;
        }
        Map<String, String> all = redis.call(commands -> commands.hgetall(key)).orElse(Map.of());
        Instant now = clock.instant();
        List<Member> read = new ArrayList<>();
        List<String> forgotten = new ArrayList<>();
        all.forEach((id, value) -> {
            if (id.equals(me.id())) {
                return;
            }
            Member member = member(id, value);
            if (member == null || member.lastHeartbeat().plus(FORGOTTEN_AFTER).isBefore(now)) {
                forgotten.add(id);
            } else {
                read.add(member);
            }
        });
        if (!forgotten.isEmpty()) {
            redis.send(async -> async.hdel(key, forgotten.toArray(String[]::new)));
        }
        read.sort(Comparator.comparing(Member::id));
        others = List.copyOf(read);
        checkDigests(me, now);
    }

    /** One WARN when the live instances run different files, one INFO when they agree again. */
    private void checkDigests(Member me, Instant now) {
        Map<String, List<String>> byDigest = new TreeMap<>();
        byDigest.computeIfAbsent(me.configDigest(), d -> new ArrayList<>()).add(me.id());
        others.stream().filter(m -> !m.goneAt(now))
                .forEach(m -> byDigest.computeIfAbsent(m.configDigest(), d -> new ArrayList<>()).add(m.id()));
        Set<String> digests = byDigest.keySet();
        if (digests.size() > 1 && !digests.equals(digestsWarned)) {
            LOG.warn("Instances run different keypool.yaml files: {}", byDigest.entrySet().stream()
                    .map(e -> e.getKey() + " on " + String.join(", ", e.getValue())).collect(Collectors.joining("; ")));
            digestsWarned = Set.copyOf(digests);
        } else if (digests.size() == 1 && digestsWarned.size() > 1) {
            LOG.info("Instances run the same keypool.yaml again ({})", me.configDigest());
            digestsWarned = Set.of();
        }
    }

    @Override
    public List<Member> members() {
        List<Member> all = new ArrayList<>();
        all.add(self.get());
        if (redis.up()) {
            all.addAll(others);
        }
        return all;
    }

    @Override
    public List<ReloadReply> reloadOthers(Duration wait) {
        Instant now = clock.instant();
        List<String> asked = members().stream().skip(1).filter(m -> !m.goneAt(now)).map(Member::id).toList();
        if (asked.isEmpty()) {
            return List.of();
        }
        String requestId = UUID.randomUUID().toString();
        String key = redis.key(TOPIC, requestId);
        redis.publish(TOPIC, requestId);
        Map<String, ReloadReply> replies = new TreeMap<>();
        long deadline = System.nanoTime() + wait.toNanos();
        while (replies.size() < asked.size() && System.nanoTime() < deadline) {
            try {
                Thread.sleep(POLL.toMillis());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
            redis.call(commands -> commands.lrange(key, 0, -1)).ifPresent(list -> list.forEach(reply -> {
                ReloadReply read = reply(reply);
                if (read != null) {
                    replies.put(read.instance(), read);
                }
            }));
        }
        redis.send(async -> async.del(key));
        List<ReloadReply> all = new ArrayList<>();
        for (String id : asked) {
            all.add(replies.getOrDefault(id, new ReloadReply(id, 0, null)));
        }
        // an instance that came up meanwhile, not known when asked, answered too
        replies.values().stream().filter(r -> !asked.contains(r.instance())).forEach(all::add);
        return all;
    }

    @Override
    public void answerReloads(Supplier<ReloadReply> reload) {
        this.reload = Objects.requireNonNull(reload, "reload");
    }

    private void answer(String requestId) {
        Supplier<ReloadReply> r = reload;
        if (r == null) {
            return;
        }
        ReloadReply reply = r.get();
        ObjectNode node = mapper.createObjectNode().put("instance", reply.instance()).put("status", reply.status())
                .put("body", reply.body());
        String key = redis.key(TOPIC, requestId);
        redis.call(commands -> {
            commands.rpush(key, node.toString());
            return commands.pexpire(key, REPLIES_KEPT.toMillis());
        });
    }

    private ReloadReply reply(String json) {
        try {
            JsonNode node = mapper.readTree(json);
            return new ReloadReply(node.path("instance").asText(), node.path("status").asInt(),
                    node.path("body").isNull() ? null : node.path("body").asText());
        } catch (Exception unreadable) {
            LOG.warn("Reload answer of another instance not understood: {}", unreadable.toString());
            return null;
        }
    }

    private ObjectNode json(Member m) {
        return mapper.createObjectNode().put("version", m.version())
                .put("startedAt", m.startedAt() == null ? 0 : m.startedAt().toEpochMilli())
                .put("lastHeartbeat", m.lastHeartbeat().toEpochMilli()).put("inFlight", m.inFlight())
                .put("configDigest", m.configDigest()).put("heartbeatMs", m.heartbeat().toMillis());
    }

    private Member member(String id, String json) {
        try {
            JsonNode node = mapper.readTree(json);
            return new Member(id, node.path("version").asText(null), Instant.ofEpochMilli(node.path("startedAt").asLong()),
                    Instant.ofEpochMilli(node.path("lastHeartbeat").asLong()), node.path("inFlight").asInt(),
                    node.path("configDigest").asText(null), Duration.ofMillis(node.path("heartbeatMs").asLong(1000)));
        } catch (Exception unreadable) {
            LOG.warn("Heartbeat of instance {} not understood: {}", id, unreadable.toString());
            return null;
        }
    }
}
