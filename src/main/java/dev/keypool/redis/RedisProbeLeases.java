package dev.keypool.redis;

import java.time.Duration;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

import dev.keypool.probe.ProbeLeases;
import io.lettuce.core.ScriptOutputType;

/**
 * The probe leases the instances share through Redis (design §8, §11): one key per channel,
 * {@code <prefix>:probe:<channel>}, holding the id of the instance that probes the channel's keys, for {@code lease}.
 * Its holder renews it as long as it runs, so a channel keeps its prober, and its keys are probed on one schedule; an
 * instance that dies stops renewing, and after the lease another instance claims the channel: probing is claimed, not
 * assigned. Redis is asked at most every quarter of the lease, whatever the probe beat; in between the last answer
 * stands. Redis down: this instance probes every channel, as alone.
 */
public final class RedisProbeLeases implements ProbeLeases {

    /**
     * KEYS: one lease per channel; ARGV[1] the claiming instance, ARGV[2] the lease in ms. Each free lease, or one the
     * instance holds, is (re)set to it; answers 1 for each lease it holds now, 0 for each another instance holds.
     */
    private static final RedisScript CLAIM = RedisScript.of("probe-lease-claim", """
            local held = {}
            for i, key in ipairs(KEYS) do
              local holder = redis.call('GET', key)
              if not holder or holder == ARGV[1] then
                redis.call('SET', key, ARGV[1], 'PX', ARGV[2])
                held[i] = 1
              else
                held[i] = 0
              end
            end
            return held
            """);

    private final RedisLink redis;
    private final Duration lease;
    // guarded by this
    private long askedAt;
    private Set<String> asked = Set.of();
    private Set<String> held = Set.of();

    public RedisProbeLeases(RedisLink redis, Duration lease) {
        this.redis = Objects.requireNonNull(redis, "redis");
        this.lease = Objects.requireNonNull(lease, "lease");
    }

    @Override
    public synchronized Set<String> held(Collection<String> channels) {
        if (!redis.up() || channels.isEmpty()) {
            return Set.copyOf(channels);
        }
        Set<String> wanted = Set.copyOf(channels);
        if (wanted.equals(asked) && System.nanoTime() - askedAt < lease.toNanos() / 4) {
            return held;
        }
        List<String> names = List.copyOf(wanted);
        Optional<List<Long>> answer = redis.eval(CLAIM, ScriptOutputType.MULTI,
                names.stream().map(name -> redis.key("probe", name)).toArray(String[]::new),
                redis.instance(), Long.toString(lease.toMillis()));
        if (answer.isEmpty()) {
            return wanted;
        }
        Set<String> mine = new HashSet<>();
        for (int i = 0; i < names.size(); i++) {
            if (answer.get().get(i) == 1L) {
                mine.add(names.get(i));
            }
        }
        askedAt = System.nanoTime();
        asked = wanted;
        held = Set.copyOf(mine);
        return held;
    }
}
