package dev.keypool.redis;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.keypool.fault.Fault;
import dev.keypool.fault.FaultKind;
import dev.keypool.fault.FaultPeers;
import dev.keypool.fault.Faults;
import io.lettuce.core.ScriptOutputType;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Faults shared through Redis (design §9, §11): each fault in force is a field of the hash {@code <prefix>:faults} (its
 * channel, key fingerprint, kind and times: no secret), added and announced on the {@code faults} topic by one script,
 * which also clears away the faults that are over; a removal is deleted and announced the same way. Ids come from one
 * counter, {@code <prefix>:faults:ids}, so that {@code DELETE /admin/faults/{id}} names one fault on every instance.
 * Every instance ends a fault by its own clock at the same {@code addedAt + duration}.
 * <p>
 * Redis down: a fault added here acts here only, and is written and announced when Redis is back; one removed here
 * meanwhile is removed there then. An instance that connects takes in the faults in force.
 */
public final class RedisFaults implements FaultPeers {

    private static final Logger LOG = LoggerFactory.getLogger(RedisFaults.class);
    private static final String TOPIC = "faults";

    /**
     * KEYS[1] the faults' hash, KEYS[2] the topic; ARGV[1] the fault's id, ARGV[2] its JSON, ARGV[3] the instance,
     * ARGV[4] now (ms). Adds the fault, deletes the ones over, announces the new one.
     */
    private static final RedisScript ADD = RedisScript.of("fault-add", """
            redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
            local all = redis.call('HGETALL', KEYS[1])
            for i = 1, #all, 2 do
              local ok, fault = pcall(cjson.decode, all[i + 1])
              if not ok or tonumber(fault.endsAt) <= tonumber(ARGV[4]) then
                redis.call('HDEL', KEYS[1], all[i])
              end
            end
            redis.call('PUBLISH', KEYS[2], ARGV[3] .. ' add ' .. ARGV[2])
            return 1
            """);

    private final RedisLink redis;
    private final Clock clock;
    private final ObjectMapper mapper = new ObjectMapper();
    private final AtomicLong localIds = new AtomicLong();
    /** Removed here while Redis was away: removed there when it is back. */
    private final Set<String> removedAlone = ConcurrentHashMap.newKeySet();
    private volatile Faults faults;

    public RedisFaults(RedisLink redis, Clock clock) {
        this.redis = Objects.requireNonNull(redis, "redis");
        this.clock = Objects.requireNonNull(clock, "clock");
    }

    @Override
    public void attach(Faults faults) {
        this.faults = faults;
        redis.subscribe(TOPIC, this::heard);
        redis.onConnect(this::writeBack);
    }

    @Override
    public Optional<String> nextId() {
        // while Redis is away, an id no other instance can give: this one's prefix and its own count
        return Optional.of(redis.call(commands -> commands.incr(redis.key(TOPIC, "ids"))).map(n -> "fault-" + n)
                .orElseGet(() -> "fault-" + redis.instance().substring(0, 6) + "-" + localIds.incrementAndGet()));
    }

    @Override
    public void added(Fault fault) {
        share(fault);
    }

    @Override
    public void removed(Fault fault) {
        if (redis.call(commands -> commands.hdel(hash(), fault.id())).isEmpty()) {
            removedAlone.add(fault.id());
            return;
        }
        redis.publish(TOPIC, "remove " + fault.id());
    }

    private boolean share(Fault fault) {
        return redis.eval(ADD, ScriptOutputType.INTEGER, new String[] {hash(), redis.key("events", TOPIC)}, fault.id(),
                json(fault), redis.instance(), Long.toString(clock.millis())).isPresent();
    }

    /** {@code add <json>} or {@code remove <id>} from another instance. */
    private void heard(String message) {
        Faults f = faults;
        if (message.startsWith("add ")) {
            Fault fault = fault(message.substring(4));
            if (fault != null) {
                f.heard(fault);
            }
        } else if (message.startsWith("remove ")) {
            f.heardRemoved(message.substring(7));
        }
    }

    /** On (re)connection: removals made here meanwhile, then this instance's faults, then every fault in force read. */
    private void writeBack() {
        Faults f = faults;
        for (String id : Set.copyOf(removedAlone)) {
            if (redis.call(commands -> commands.hdel(hash(), id)).isPresent()) {
                redis.publish(TOPIC, "remove " + id);
                removedAlone.remove(id);
            }
        }
        Map<String, String> stored = redis.call(commands -> commands.hgetall(hash())).orElse(Map.of());
        for (Fault fault : f.active()) {
            if (!stored.containsKey(fault.id())) {
                share(fault);
            }
        }
        stored.values().forEach(json -> {
            Fault fault = fault(json);
            if (fault != null) {
                f.heard(fault);
            }
        });
    }

    private String hash() {
        return redis.key(TOPIC);
    }

    private String json(Fault fault) {
        return mapper.createObjectNode().put("id", fault.id()).put("channel", fault.channel()).put("key", fault.key())
                .put("kind", fault.kind().name()).put("status", fault.status()).put("latencyMs", fault.latencyMs())
                .put("rate", fault.rate()).put("durationMs", fault.duration().toMillis())
                .put("addedAt", fault.addedAt().toEpochMilli()).put("endsAt", fault.endsAt().toEpochMilli()).toString();
    }

    private Fault fault(String json) {
        try {
            JsonNode node = mapper.readTree(json);
            return new Fault(node.get("id").asText(), node.get("channel").asText(),
                    node.path("key").isTextual() ? node.get("key").asText() : null, FaultKind.valueOf(node.get("kind").asText()),
                    node.path("status").asInt(), node.path("latencyMs").asLong(), node.path("rate").asDouble(1.0),
                    Duration.ofMillis(node.get("durationMs").asLong()), Instant.ofEpochMilli(node.get("addedAt").asLong()));
        } catch (Exception unreadable) {
            LOG.warn("Fault of another instance not understood: {}", unreadable.toString());
            return null;
        }
    }
}
