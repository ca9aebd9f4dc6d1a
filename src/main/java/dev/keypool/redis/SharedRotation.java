package dev.keypool.redis;

import java.util.Objects;
import java.util.OptionalLong;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import dev.keypool.pool.Rotation;
import io.lettuce.core.RedisFuture;

/**
 * A channel's round robin counted in Redis by every gateway instance (design §11): one counter per channel,
 * {@code <prefix>:rotation:<channel>}, from which each instance leases a few positions at a time ({@code INCRBY}) and
 * hands them to its picks in order. The next lease is asked for, without waiting, when the positions in hand run down
 * to half a lease: a request never waits for Redis for its pick, and with one lease in flight at most a channel costs
 * Redis one command per {@code lease} picks. A pick that finds none in hand (the first lease not back yet, Redis away,
 * a burst faster than the leases) is this instance's own rotation. The counter holds a number, never a key.
 */
public final class SharedRotation implements Rotation {

    private final RedisLink redis;
    private final String counter;
    private final int lease;
    private final ConcurrentLinkedQueue<Long> inHand = new ConcurrentLinkedQueue<>();
    /** How many positions {@link #inHand} holds (its own size() counts them one by one). */
    private final AtomicInteger held = new AtomicInteger();
    private final AtomicBoolean leasing = new AtomicBoolean();

    SharedRotation(RedisLink redis, String channel, int lease) {
        if (lease < 1) {
            throw new IllegalArgumentException("a rotation lease holds at least one position, was " + lease);
        }
        this.redis = Objects.requireNonNull(redis, "redis");
        this.counter = redis.key("rotation", Objects.requireNonNull(channel, "channel"));
        this.lease = lease;
    }

    /**
     * Every channel's rotation on this Redis, leasing {@code lease} positions at a time; each asks for its first lease
     * as soon as Redis is connected, and again whenever it is back.
     */
    public static Factory on(RedisLink redis, int lease) {
        return channel -> {
            SharedRotation rotation = new SharedRotation(redis, channel, lease);
            redis.onConnect(rotation::leaseIfLow);
            rotation.leaseIfLow();
            return rotation;
        };
    }

    @Override
    public OptionalLong next() {
        Long position = inHand.poll();
        if (position != null) {
            held.decrementAndGet();
        }
        leaseIfLow();
        return position == null ? OptionalLong.empty() : OptionalLong.of(position);
    }

    /** Asks for the next lease when half a lease or less is in hand and none is on its way. */
    private void leaseIfLow() {
        if (held.get() > lease / 2 || !leasing.compareAndSet(false, true)) {
            return;
        }
        AtomicBoolean sent = new AtomicBoolean();
        redis.send(commands -> {
            RedisFuture<Long> last = commands.incrby(counter, lease);
            sent.set(true);
            last.whenComplete((end, failure) -> {
                if (failure == null && end != null) {
                    for (long p = end - lease; p < end; p++) {
                        inHand.add(p);
                    }
                    held.addAndGet(lease);
                }
                leasing.set(false);
            });
            return last;
        });
        if (!sent.get()) {
            // Redis is down: nothing is on its way, the next pick may ask again (RedisLink sends nothing until it is back)
            leasing.set(false);
        }
    }
}
