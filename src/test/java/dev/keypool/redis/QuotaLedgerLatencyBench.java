package dev.keypool.redis;

import java.time.Clock;
import java.time.Duration;
import java.time.ZoneOffset;
import java.util.Arrays;

import dev.keypool.config.RedisConfig;
import dev.keypool.quota.KeyQuota;
import dev.keypool.quota.QuotaLedger;
import dev.keypool.quota.QuotaLimits;
import dev.keypool.testing.RedisServer;
import org.junit.jupiter.api.Test;

/**
 * Not part of the suite (no "Test" suffix): what the shared quota check adds to a reservation, a redis-server on
 * loopback against the local quota alone. Run: mvn -o test -Dtest=QuotaLedgerLatencyBench -Dsurefire.failIfNoSpecifiedTests=false
 */
class QuotaLedgerLatencyBench {

    @Test
    void measure() {
        try (RedisServer server = RedisServer.start();
             RedisLink link = new RedisLink(new RedisConfig(server.url(), "bench", Duration.ofMillis(50)))) {
            link.check();
            QuotaLimits limits = new QuotaLimits(100_000_000L, 1_000_000_000L, 100_000_000L, null, null);
            for (int round = 1; round <= 3; round++) {
                KeyQuota local = new KeyQuota("Key l(b)", limits, ZoneOffset.UTC, Clock.systemUTC());
                KeyQuota shared = new KeyQuota("Key s(b)", limits, ZoneOffset.UTC, Clock.systemUTC(),
                        new RedisQuotaLedger(link, "bench", "s" + round));
                long[] l = run(local, 20_000);
                long[] s = run(shared, 20_000);
                System.out.printf("round %d: local p50 %.1f us p99 %.1f us; with Redis p50 %.1f us p99 %.1f us%n", round,
                        l[l.length / 2] / 1e3, l[l.length * 99 / 100] / 1e3, s[s.length / 2] / 1e3, s[s.length * 99 / 100] / 1e3);
            }
            // what Redis itself spends per script call (usec_per_call), against what a request waits for it above
            server.commands().info("commandstats").lines().filter(line -> line.contains("evalsha"))
                    .forEach(line -> System.out.println("redis " + line));
        }
    }

    private static long[] run(KeyQuota quota, int n) {
        long[] nanos = new long[n];
        for (int i = 0; i < n; i++) {
            long t = System.nanoTime();
            quota.tryReserve(300, false).orElseThrow();
            nanos[i] = System.nanoTime() - t;
        }
        Arrays.sort(nanos);
        return nanos;
    }
}
