package dev.keypool.bench;

import java.time.Clock;
import java.time.Duration;
import java.util.Arrays;
import java.util.function.Supplier;

import dev.keypool.config.RedisConfig;
import dev.keypool.redis.RedisLink;
import dev.keypool.redis.RedisTenantLimits;
import dev.keypool.tenant.LocalTenantLimits;
import dev.keypool.tenant.TenantLimits;
import dev.keypool.testing.RedisServer;
import org.junit.jupiter.api.Test;

/**
 * Not part of the suite (its name matches none of Surefire's test patterns): the time one tenant admission takes
 * with the limits in this instance, and shared through a redis-server on loopback (a PING through the same link for
 * the floor), sequentially, three rounds of 5,000 after 5,000 of warm-up; and the Redis calls per admission.
 * {@code mvn -o test -Dtest=SharedTenantAdmitBench -Dsurefire.failIfNoSpecifiedTests=false}
 */
class SharedTenantAdmitBench {

    private static final int CALLS = 5000;

    @Test
    void admission_local_against_redis() {
        try (RedisServer server = RedisServer.start();
             RedisLink link = new RedisLink(new RedisConfig(server.url(), "bench", Duration.ofSeconds(1)))) {
            link.check();
            // limits nobody reaches: every admission takes from all of them
            TenantLimits local = new LocalTenantLimits("local", 1_000_000, 1_000_000, 1_000_000_000L, 1_000_000_000, 1e9,
                    1e9, Clock.systemUTC());
            TenantLimits bucketOnly = RedisTenantLimits.shared("bucket-only", 1_000_000, 1_000_000, null, null, null, null,
                    link, Clock.systemUTC());
            TenantLimits all = RedisTenantLimits.shared("all-limits", 1_000_000, 1_000_000, 1_000_000_000L, 1_000_000_000,
                    1e9, 1e9, link, Clock.systemUTC());
            for (int round = 0; round <= 3; round++) {
                String label = round == 0 ? "warm-up" : "round " + round;
                report(label, "local, all limits", () -> local.admit(() -> 20));
                report(label, "redis PING", () -> link.call(redis -> redis.ping()));
                report(label, "redis, rpm bucket", () -> bucketOnly.admit(() -> 20));
                server.commands().configResetstat();
                report(label, "redis, all limits", () -> all.admit(() -> 20));
                System.out.printf("%s: redis, all limits: %.2f EVALSHA per admission%n", label,
                        (double) server.commandCalls().getOrDefault("evalsha", 0L) / CALLS);
            }
        }
    }

    private static void report(String round, String what, Supplier<?> call) {
        long[] times = new long[CALLS];
        for (int i = 0; i < CALLS; i++) {
            long start = System.nanoTime();
            call.get();
            times[i] = System.nanoTime() - start;
        }
        Arrays.sort(times);
        System.out.printf("%s: %-20s p50 %.3f ms, p99 %.3f ms%n", round, what, times[CALLS / 2] / 1e6,
                times[CALLS * 99 / 100] / 1e6);
    }
}
