package dev.keypool.bench;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.atomic.AtomicLong;

import dev.keypool.events.StateListeners;
import dev.keypool.pool.Fingerprint;
import dev.keypool.pool.KeyPool;
import dev.keypool.pool.KeyState;
import dev.keypool.pool.KeyStateChange;
import dev.keypool.testing.FakeUpstream;
import dev.keypool.testing.GatewayInstance;
import dev.keypool.testing.RedisServer;
import org.junit.jupiter.api.Test;

/**
 * Not part of the suite (its name matches none of Surefire's test patterns): what sharing state through Redis costs
 * (design §11), on one real redis-server on loopback and one fake provider answering at once.
 * <ol>
 * <li>Added latency: a gateway with {@code redis:} and one without, same keys (rpm and tpm limits, so every request
 * takes its quota in Redis) and the same tenant (rpm limit), sequential requests over HTTP at 1 connection, rounds
 * alternated; prints p50/p99 per round and the difference of the p50s.</li>
 * <li>Cooling seen by the other instance: two instances A and B sharing the Redis; a request on A meets a key that
 * answers 429; the time from A's COOLING transition to B's pool reporting the key COOLING, over many rounds.</li>
 * </ol>
 * {@code mvn -o test -Dtest=SharedStateBench -Dsurefire.failIfNoSpecifiedTests=false} (or {@code bench/redis.sh}).
 */
class SharedStateBench {

    private static final int CALLS = Integer.getInteger("bench.calls", 4000);
    private static final int ROUNDS = Integer.getInteger("bench.rounds", 3);
    private static final int COOLINGS = Integer.getInteger("bench.coolings", 300);
    private static final String TOKEN = "tk-bench-team-token";

    @Test
    void added_latency_and_cooling_propagation() throws Exception {
        Path dir = Files.createTempDirectory("keypool-shared-bench-");
        try (RedisServer redis = RedisServer.start(); FakeUpstream upstream = new FakeUpstream().keepRequests(false)) {
            upstream.answer("sk-bench-cool-429", 429, "60", "{\"error\":{\"message\":\"slow down\"}}");
            String config = config(upstream.baseUrl(), true);
            String keyLimitsOnly = config(upstream.baseUrl(), false);
            String redisBlock = "redis:\n  url: " + redis.url() + "\n";
            try (GatewayInstance local = GatewayInstance.start(dir, "local", config, Clock.systemUTC());
                 GatewayInstance a = GatewayInstance.start(dir, "a", config + redisBlock, Clock.systemUTC());
                 GatewayInstance b = GatewayInstance.start(dir, "b", config + redisBlock, Clock.systemUTC())) {
                System.out.println("keys with rpm and tpm limits, tenant with an rpm limit (one Redis round trip for both):");
                addedLatency(local, a);
                printScriptTime(redis);
                coolingPropagation(a, b);
            }
            try (GatewayInstance local = GatewayInstance.start(dir, "local-keys", keyLimitsOnly, Clock.systemUTC());
                 GatewayInstance shared = GatewayInstance.start(dir, "shared-keys", keyLimitsOnly + redisBlock,
                         Clock.systemUTC())) {
                System.out.println("keys with rpm and tpm limits, tenant without limits (one Redis round trip):");
                addedLatency(local, shared);
                printScriptTime(redis);
            }
        }
    }

    /**
     * What Redis itself spent per script call (of the requests above), against what a request waits for it; and the
     * rotation's leases (incrby), which no request waits for.
     */
    private static void printScriptTime(RedisServer redis) {
        redis.commands().info("commandstats").lines()
                .filter(line -> line.startsWith("cmdstat_evalsha") || line.startsWith("cmdstat_incrby"))
                .forEach(line -> System.out.println("  redis " + line));
        redis.commands().configResetstat();
    }

    private static void addedLatency(GatewayInstance local, GatewayInstance shared) throws Exception {
        HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
        // JIT warm-up of both, alternated
        for (int i = 0; i < 3; i++) {
            run(http, local, CALLS);
            run(http, shared, CALLS);
        }
        for (int round = 1; round <= ROUNDS; round++) {
            long[] withoutRedis = run(http, local, CALLS);
            long[] withRedis = run(http, shared, CALLS);
            System.out.printf("  round %d: without redis p50 %.3f ms p99 %.3f ms | with redis p50 %.3f ms p99 %.3f ms | "
                            + "added p50 %.3f ms%n", round, ms(withoutRedis, 0.50), ms(withoutRedis, 0.99),
                    ms(withRedis, 0.50), ms(withRedis, 0.99), ms(withRedis, 0.50) - ms(withoutRedis, 0.50));
        }
    }

    private static long[] run(HttpClient http, GatewayInstance gateway, int calls) throws Exception {
        HttpRequest request = HttpRequest.newBuilder(URI.create(gateway.baseUrl() + "/v1/chat/completions"))
                .header("Content-Type", "application/json").header("Authorization", "Bearer " + TOKEN)
                .POST(HttpRequest.BodyPublishers.ofString(
                        "{\"model\":\"m\",\"messages\":[{\"role\":\"user\",\"content\":\"hello there\"}]}"))
                .build();
        long[] nanos = new long[calls];
        for (int i = 0; i < calls; i++) {
            long start = System.nanoTime();
            HttpResponse<String> r = http.send(request, HttpResponse.BodyHandlers.ofString());
            nanos[i] = System.nanoTime() - start;
            if (r.statusCode() != 200) {
                throw new IllegalStateException("answered " + r.statusCode() + ": " + r.body());
            }
        }
        Arrays.sort(nanos);
        return nanos;
    }

    private static void coolingPropagation(GatewayInstance a, GatewayInstance b) throws Exception {
        String fingerprint = Fingerprint.of("sk-bench-cool-429");
        AtomicLong cooledOnA = new AtomicLong();
        a.bean("stateListeners", StateListeners.class).add(change -> {
            if (change instanceof KeyStateChange k && k.fingerprint().equals(fingerprint) && k.toState() == KeyState.COOLING) {
                cooledOnA.compareAndSet(0, System.nanoTime());
            }
        });
        KeyPool poolA = a.channel("cool").pool();
        KeyPool poolB = b.channel("cool").pool();
        long[] nanos = new long[COOLINGS];
        for (int i = 0; i < COOLINGS; i++) {
            cooledOnA.set(0);
            while (cooledOnA.get() == 0) {
                a.chat("c", TOKEN);
            }
            while (poolB.stateOf(poolB.find(fingerprint).orElseThrow()) != KeyState.COOLING) {
                if (System.nanoTime() - cooledOnA.get() > Duration.ofSeconds(5).toNanos()) {
                    throw new IllegalStateException("B never saw the cooling of round " + i);
                }
                Thread.onSpinWait();
            }
            nanos[i] = System.nanoTime() - cooledOnA.get();
            // back to ACTIVE on both before the next round (an operator's enable of a COOLING key is not shared)
            poolA.controls().enable(fingerprint);
            poolB.controls().enable(fingerprint);
        }
        Arrays.sort(nanos);
        System.out.printf("  cooling on A seen by B over %d coolings: p50 %.2f ms, p99 %.2f ms, max %.2f ms%n", COOLINGS,
                ms(nanos, 0.50), ms(nanos, 0.99), nanos[nanos.length - 1] / 1e6);
    }

    private static String config(String baseUrl, boolean tenantLimited) {
        return """
                channels:
                  - name: main
                    baseUrl: %1$s
                    models: [m]
                    keys:
                      - {key: sk-bench-main-1, rpm: 100000000, tpm: 100000000000}
                      - {key: sk-bench-main-2, rpm: 100000000, tpm: 100000000000}
                  - name: cool
                    baseUrl: %1$s
                    models: [c]
                    maxRetries: 1
                    keys:
                      - key: sk-bench-cool-429
                      - key: sk-bench-cool-ok
                tenants:
                  - name: team
                    token: %2$s
                """.formatted(baseUrl, TOKEN) + (tenantLimited ? "    rpm: 100000000\n" : "");
    }

    private static double ms(long[] sorted, double quantile) {
        return sorted[(int) Math.min(sorted.length - 1, Math.floor(quantile * sorted.length))] / 1e6;
    }
}
