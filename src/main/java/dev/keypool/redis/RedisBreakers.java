package dev.keypool.redis;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.keypool.breaker.BreakerPeers;
import dev.keypool.breaker.BreakerSnapshot;
import dev.keypool.breaker.ChannelBreaker;
import dev.keypool.events.RemoteOrigin;
import io.lettuce.core.ScriptOutputType;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The channel breakers shared through Redis (design §11). Each decision a breaker makes is kept in the hash
 * {@code <prefix>:breaker:<channel>} and published on the {@code breakers} topic; the other instances' breakers take it
 * over ({@link ChannelBreaker#follow}) without announcing it again. A half-open period's probes are taken from the hash
 * {@code <prefix>:breaker:<channel>:probes:<period>} by one Lua script (never more than {@code halfOpenRequests} across
 * the instances), and their results counted there, so that the verdict is the same whichever instance probed.
 *
 * <p>Redis down: no call is made, every breaker decides alone (its own probe gate), and announcements are lost. Redis
 * back ({@link RedisLink#onConnect}): each breaker and the hash are compared, and the newer decision wins on both
 * sides ({@link BreakerSnapshot#newerThan}: the later one, and of two at once the more cautious).
 */
public final class RedisBreakers implements BreakerPeers {

    private static final Logger LOG = LoggerFactory.getLogger(RedisBreakers.class);
    private static final String TOPIC = "breakers";
    /** Only to clear away old periods: a period ends by its verdict, not by this. */
    private static final Duration PERIOD_KEPT = Duration.ofHours(1);
    private static final TypeReference<Map<String, String>> FIELDS = new TypeReference<>() { };

    /**
     * How long after the last probe was taken the probes never reported (a client gone, a visit that ended without
     * an outcome, an instance that died) give their places back: without it, such probes would keep the channel
     * HALF_OPEN and shut on every instance, waiting for a verdict that never comes.
     */
    private static final Duration PROBE_LOST_AFTER = Duration.ofMinutes(2);

    /**
     * KEYS[1] the period's hash, ARGV[1] probes allowed, ARGV[2] ms to keep it, ARGV[3] ms after which unreported
     * probes are lost (Redis's own clock: the instances' clocks may differ): 1 = a probe taken, 0 = none left.
     */
    private static final RedisScript TAKE = RedisScript.of("breaker-probe-take", """
            local taken = tonumber(redis.call('HGET', KEYS[1], 'taken') or '0')
            local time = redis.call('TIME')
            local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
            if taken >= tonumber(ARGV[1]) then
              local last = tonumber(redis.call('HGET', KEYS[1], 'takenAt') or '0')
              if now - last < tonumber(ARGV[3]) then
                return 0
              end
              taken = tonumber(redis.call('HGET', KEYS[1], 'ok') or '0') + tonumber(redis.call('HGET', KEYS[1], 'failed') or '0')
              redis.call('HSET', KEYS[1], 'taken', taken)
              if taken >= tonumber(ARGV[1]) then
                return 0
              end
            end
            redis.call('HINCRBY', KEYS[1], 'taken', 1)
            redis.call('HSET', KEYS[1], 'takenAt', now)
            redis.call('PEXPIRE', KEYS[1], ARGV[2])
            return 1
            """);

    /** KEYS[1] the period's hash, ARGV[1] 'ok' or 'failed', ARGV[2] ms to keep it: the period's {ok, failed}. */
    private static final RedisScript RECORD = RedisScript.of("breaker-probe-record", """
            redis.call('HINCRBY', KEYS[1], ARGV[1], 1)
            redis.call('PEXPIRE', KEYS[1], ARGV[2])
            return {tonumber(redis.call('HGET', KEYS[1], 'ok') or '0'), tonumber(redis.call('HGET', KEYS[1], 'failed') or '0')}
            """);

    private final RedisLink redis;
    private final ObjectMapper mapper = new ObjectMapper();
    private final Map<String, ChannelBreaker> breakers = new ConcurrentHashMap<>();

    /** Subscribes and registers its write-back; before {@code redis} first connects. */
    public RedisBreakers(RedisLink redis) {
        this.redis = redis;
        redis.subscribe(TOPIC, this::heard);
        redis.onConnect(this::writeBack);
    }

    @Override
    public void attach(ChannelBreaker breaker) {
        breakers.put(breaker.channel(), breaker);
    }

    @Override
    public void announce(BreakerSnapshot decision) {
        Map<String, String> fields = decision.toFields();
        redis.send(commands -> commands.hset(stateKey(decision.channel()), fields));
        try {
            redis.publish(TOPIC, mapper.writeValueAsString(fields));
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            throw new IllegalStateException("a map of strings is always JSON", e);
        }
    }

    @Override
    public boolean takeProbe(String channel, long period, int allowed) {
        Optional<Long> taken = redis.eval(TAKE, ScriptOutputType.INTEGER, new String[] {probesKey(channel, period)},
                Integer.toString(allowed), Long.toString(PERIOD_KEPT.toMillis()), Long.toString(PROBE_LOST_AFTER.toMillis()));
        return taken.map(t -> t == 1L).orElse(true);
    }

    @Override
    public Optional<ProbeTally> recordProbe(String channel, long period, boolean success) {
        Optional<List<Long>> counts = redis.eval(RECORD, ScriptOutputType.MULTI, new String[] {probesKey(channel, period)},
                success ? "ok" : "failed", Long.toString(PERIOD_KEPT.toMillis()));
        return counts.map(c -> new ProbeTally(period, c.get(0).intValue(), c.get(1).intValue()));
    }

    /** Another instance's decision; on a Redis I/O thread, and following takes only the breaker's lock. */
    private void heard(String message) {
        Map<String, String> fields;
        try {
            fields = mapper.readValue(message, FIELDS);
        } catch (java.io.IOException e) {
            throw new IllegalArgumentException("breaker message is not JSON", e);
        }
        BreakerSnapshot decision = BreakerSnapshot.fromFields(fields);
        ChannelBreaker breaker = breakers.get(decision.channel());
        if (breaker != null) {
            RemoteOrigin.run(() -> breaker.follow(decision));
        }
    }

    /** Redis (back): the newer of each breaker and its hash wins, here or there. */
    private void writeBack() {
        for (ChannelBreaker breaker : breakers.values()) {
            Optional<Map<String, String>> kept = redis.call(commands -> commands.hgetall(stateKey(breaker.channel())));
            if (kept.isEmpty() && !redis.up()) {
                return;
            }
            BreakerSnapshot local = breaker.snapshot();
            BreakerSnapshot shared = kept.filter(fields -> !fields.isEmpty()).map(this::parse).orElse(null);
            if (shared != null && shared.newerThan(local)) {
                RemoteOrigin.run(() -> breaker.follow(shared));
            } else if (local.version() > 0 && (shared == null || local.newerThan(shared))) {
                LOG.debug("Channel [{}] breaker {} written back to Redis", breaker.channel(), local.state());
                announce(local);
            }
        }
    }

    private BreakerSnapshot parse(Map<String, String> fields) {
        try {
            return BreakerSnapshot.fromFields(fields);
        } catch (IllegalArgumentException unreadable) {
            LOG.warn("Breaker state in Redis ignored: {}", unreadable.getMessage());
            return null;
        }
    }

    private String stateKey(String channel) {
        return redis.key("breaker", channel);
    }

    private String probesKey(String channel, long period) {
        return redis.key("breaker", channel, "probes", Long.toString(period));
    }
}
