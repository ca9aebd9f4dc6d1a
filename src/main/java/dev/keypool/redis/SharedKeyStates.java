package dev.keypool.redis;

import java.time.Clock;
import java.time.Instant;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

import dev.keypool.events.RemoteOrigin;
import dev.keypool.events.StateChange;
import dev.keypool.events.StateListener;
import dev.keypool.gateway.Channel;
import dev.keypool.gateway.Channels;
import dev.keypool.pool.ApiKey;
import dev.keypool.pool.KeyPool;
import dev.keypool.pool.KeyState;
import dev.keypool.pool.KeyStateChange;
import io.lettuce.core.ScriptOutputType;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Key states shared by every gateway instance (design §11): a listener of this instance's key state changes that
 * writes each to Redis and tells the other instances, and applies what they tell. One hash per channel,
 * {@code <prefix>:keys:<channel>}, field = fingerprint, value = {@code STATE coolingUntilMillis draining byOperator}
 * (e.g. {@code COOLING 1764547200000 0 0}). The merge is one script: a COOLING deadline is only ever extended,
 * DISABLED stays until a key comes back ACTIVE (an operator or a probe), and the result, when it changed, is published
 * by the same script. Another instance applies it to its {@link KeyPool} ({@link KeyPool#applyShared}); what it
 * applies is not sent back. A cooling that simply ran out is not written: every instance sees the deadline pass.
 * <p>
 * When Redis comes back (or first connects), this instance's non-ACTIVE and draining keys are merged in, then the
 * shared states of every channel are read.
 */
public final class SharedKeyStates implements StateListener {

    private static final Logger LOG = LoggerFactory.getLogger(SharedKeyStates.class);
    private static final String TOPIC = "keys";

    /**
     * KEYS: the channel's hash, the pub/sub channel. ARGV: instance, channel, fingerprint, state, cooling deadline
     * (ms), draining (0/1), byOperator (0/1), now (ms), mode (set: this instance's change of state | drain: only the
     * drain flag changed | merge: a write-back, which never makes a key ACTIVE nor stops a drain). Answers the state
     * now in place.
     */
    static final RedisScript MERGE = RedisScript.of("key-state", """
            local stored = redis.call('HGET', KEYS[1], ARGV[3])
            local state, deadline, draining, operator = 'ACTIVE', 0, '0', '0'
            if stored then
              local parts = {}
              for part in string.gmatch(stored, '%S+') do
                parts[#parts + 1] = part
              end
              state, deadline, draining, operator = parts[1], tonumber(parts[2]), parts[3], parts[4]
            end
            local now = tonumber(ARGV[8])
            if state == 'COOLING' and deadline <= now then
              state, deadline = 'ACTIVE', 0
            end
            local before = state .. ' ' .. string.format('%.0f', deadline) .. ' ' .. draining .. ' ' .. operator
            local mode, wanted, wantedDeadline = ARGV[9], ARGV[4], tonumber(ARGV[5])
            if mode == 'drain' then
              wanted = nil
            end
            if wanted == 'DISABLED' then
              if state ~= 'DISABLED' then
                operator = '0'
              end
              state, deadline = 'DISABLED', 0
              if ARGV[7] == '1' then
                operator = '1'
              end
            elseif wanted == 'COOLING' then
              if state ~= 'DISABLED' and wantedDeadline > now and not (state == 'COOLING' and deadline >= wantedDeadline) then
                state, deadline = 'COOLING', wantedDeadline
              end
            elseif wanted == 'ACTIVE' and mode == 'set' then
              state, deadline, operator = 'ACTIVE', 0, '0'
            end
            if mode ~= 'merge' then
              draining = ARGV[6]
            elseif ARGV[6] == '1' then
              draining = '1'
            end
            local after = state .. ' ' .. string.format('%.0f', deadline) .. ' ' .. draining .. ' ' .. operator
            if after ~= before or not stored then
              redis.call('HSET', KEYS[1], ARGV[3], after)
              redis.call('PUBLISH', KEYS[2], ARGV[1] .. ' ' .. ARGV[2] .. ' ' .. ARGV[3] .. ' ' .. after)
            end
            return after
            """);

    private final RedisLink redis;
    private final Channels channels;
    private final Clock clock;
    /** Set while this instance applies a shared state, so that the change it makes is not written back again. */
    private final ThreadLocal<Boolean> applying = ThreadLocal.withInitial(() -> false);

    /** Hears the other instances and writes back on every (re)connection; add it to the gateway's state listeners. */
    public SharedKeyStates(RedisLink redis, Channels channels, Clock clock) {
        this.redis = Objects.requireNonNull(redis, "redis");
        this.channels = Objects.requireNonNull(channels, "channels");
        this.clock = Objects.requireNonNull(clock, "clock");
        redis.subscribe(TOPIC, this::heard);
        redis.onConnect(this::writeBack);
    }

    @Override
    public void stateChanged(StateChange change) {
        if (applying.get() || !(change instanceof KeyStateChange k)
                || k.fromState() == KeyState.COOLING && k.toState() == KeyState.ACTIVE) {
            return;
        }
        // an operator's or a reload's change that is not a move of the state (drain, weight, added key) can only have
        // changed the drain flag; a key a reload removed is not found, and its drain stays on this instance. A COOLING
        // key's change to COOLING is a later deadline.
        String mode = k.fromState() == k.toState() && k.toState() != KeyState.COOLING ? "drain" : "set";
        pool(k.channel()).ifPresent(pool -> pool.find(k.fingerprint()).ifPresent(key -> share(pool, key, mode)));
    }

    /** Writes one key's state (merged by the script) and applies what is in place afterwards. */
    private void share(KeyPool pool, ApiKey key, String mode) {
        KeyState state = pool.stateOf(key);
        long deadline = pool.coolingUntil(key).map(Instant::toEpochMilli).orElse(0L);
        Optional<String> after = redis.eval(MERGE, ScriptOutputType.VALUE,
                new String[] {redis.key(TOPIC, pool.channel()), redis.key("events", TOPIC)},
                redis.instance(), pool.channel(), key.fingerprint(), state.name(), Long.toString(deadline),
                flag(key.draining()), flag(pool.disabledByOperator(key)), Long.toString(clock.millis()), mode);
        after.ifPresent(value -> apply(pool, key.fingerprint(), value));
    }

    /** A state another instance published: {@code channel fingerprint STATE deadline draining byOperator}. */
    private void heard(String message) {
        String[] parts = message.split(" ", 3);
        if (parts.length == 3) {
            pool(parts[0]).ifPresent(pool -> apply(pool, parts[1], parts[2]));
        }
    }

    private void apply(KeyPool pool, String fingerprint, String value) {
        String[] parts = value.split(" ");
        if (parts.length != 4) {
            LOG.warn("Shared state of key {}({}) not understood: {}", fingerprint, pool.channel(), value);
            return;
        }
        long deadline = Long.parseLong(parts[1]);
        applying.set(true);
        try {
            RemoteOrigin.run(() -> pool.controls().applyShared(fingerprint, KeyState.valueOf(parts[0]),
                    deadline == 0 ? null : Instant.ofEpochMilli(deadline), "1".equals(parts[2]), "1".equals(parts[3])));
        } finally {
            applying.set(false);
        }
    }

    /** On (re)connection: this instance's non-ACTIVE and draining keys merged into Redis, then every shared state read. */
    private void writeBack() {
        for (Channel channel : channels.all()) {
            KeyPool pool = channel.pool();
            for (ApiKey key : pool.keys()) {
                if (key.draining() || pool.stateOf(key) != KeyState.ACTIVE) {
                    share(pool, key, "merge");
                }
            }
            redis.call(commands -> commands.hgetall(redis.key(TOPIC, pool.channel())))
                    .ifPresent(states -> states.forEach((fingerprint, value) -> apply(pool, fingerprint, value)));
        }
    }

    private Optional<KeyPool> pool(String channel) {
        return channels.get(channel).map(Channel::pool);
    }

    private static String flag(boolean on) {
        return on ? "1" : "0";
    }
}
