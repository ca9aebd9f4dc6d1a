package dev.keypool.it;

import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import dev.keypool.pool.Fingerprint;
import dev.keypool.pool.KeyPool;
import dev.keypool.pool.KeyState;
import dev.keypool.quota.KeyQuota;
import dev.keypool.redis.RedisLink;
import dev.keypool.testing.GatewayInstance;
import dev.keypool.testing.LogCapture;
import org.apache.logging.log4j.Level;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Redis killed under load: two instances go on with their local state and fail no request; Redis back (empty), they
 * write their key states and quota counts back and converge.
 */
@Tag("slow")
class SharedRedisDownTest {

    private static final List<String> MAIN_KEYS = List.of(
            "sk-proj-M1aK8sLq2Wd4Fr6Gt8Hy0Ju2Ki4Lo6Pz8Xc0Vb2Nm4Qa6Ws8Ed0Rf",
            "sk-proj-M2bJ7tKp3Xe5Gs7Hu9Iz1Kv3Lj5Mp7Qa9Yd1Wc3On5Rb7Xt9Fe1Sg",
            "sk-proj-M3cH6uJo4Yf6Ht8Iv0Ja2Lw4Mk6Nq8Rb0Ze2Xd4Po6Sc8Yu0Gf2Th");
    private static final String HOT = "sk-proj-Hx9Gv8Fu7Et6Ds5Cr4Bq3Ap2Zo1Yn0Xm9Wl8Vk7Uj6Ti5Sh4Rg3Qf";
    private static final String SPARE = "sk-proj-Sy1Rx2Qw3Pv4Ou5Nt6Ms7Lr8Kq9Jp0Io1Hn2Gm3Fl4Ek5Dj6Ci7Bh";

    @TempDir
    Path dir;

    private final LogCapture logs = LogCapture.of(RedisLink.class);
    private SharedGateways shared;

    @BeforeEach
    void share() {
        shared = new SharedGateways(dir, Clock.systemUTC());
    }

    @AfterEach
    void stop() {
        shared.close();
        logs.close();
    }

    @Test
    void should_fail_no_request_when_redis_dies_and_converge_when_it_returns() throws Exception {
        GatewayInstance a = instance("a");
        GatewayInstance b = instance("b");
        List<HttpResponse<String>> answers = new CopyOnWriteArrayList<>();
        AtomicInteger done = new AtomicInteger();

        ExecutorService clients = Executors.newFixedThreadPool(8);
        try {
            List<Future<?>> running = new CopyOnWriteArrayList<>();
            for (int t = 0; t < 8; t++) {
                GatewayInstance target = t % 2 == 0 ? a : b;
                running.add(clients.submit(() -> {
                    for (int i = 0; i < 50; i++) {
                        answers.add(target.chat("gpt-main", null));
                        done.incrementAndGet();
                    }
                }));
            }
            await().atMost(Duration.ofSeconds(30)).until(() -> done.get() >= 100);
            shared.redis.kill();
            for (Future<?> f : running) {
                f.get(60, TimeUnit.SECONDS);
            }
        } finally {
            clients.shutdownNow();
        }

        assertThat(answers).hasSize(400).allSatisfy(r -> assertThat(r.statusCode()).isEqualTo(200));
        await().atMost(Duration.ofSeconds(2)).until(() -> logs.messages(Level.WARN).size() == 2);

        // while Redis is away, A cools a key by a 429 that B cannot hear of
        shared.upstream.answer(HOT, 429, "120", null);
        a.chat("gpt-side", null);
        a.chat("gpt-side", null);
        assertThat(stateOn(a, HOT)).isEqualTo(KeyState.COOLING);
        assertThat(stateOn(b, HOT)).isEqualTo(KeyState.ACTIVE);
        long countedOnA = used(a);
        long countedOnB = used(b);

        shared.redis.restart();

        await().atMost(Duration.ofSeconds(5)).pollInterval(Duration.ofMillis(50))
                .until(() -> stateOn(b, HOT) == KeyState.COOLING);
        assertThat(pool(b, "side").coolingUntil(key(b, "side", HOT)))
                .isEqualTo(pool(a, "side").coolingUntil(key(a, "side", HOT)).map(at -> at.truncatedTo(java.time.temporal.ChronoUnit.MILLIS)));
        // each main key's minute use written back second by second, each second the higher of the two instances'
        // counts: at least what either counted, less than both together (the calls before the kill counted in both)
        await().atMost(Duration.ofSeconds(5)).pollInterval(Duration.ofMillis(50))
                .until(() -> sharedRpm() >= Math.max(countedOnA, countedOnB));
        assertThat(sharedRpm()).isLessThan(countedOnA + countedOnB);
        // each instance says so once, after its write-back
        await().atMost(Duration.ofSeconds(2))
                .until(() -> logs.messages(Level.INFO).stream().filter(m -> m.contains("written back")).count() == 2);
        assertThat(logs.messages(Level.WARN)).hasSize(2);
        assertThat(shared.redis.dump().toString()).doesNotContain("sk-proj-");
    }

    /** What the instance counts in the rpm windows of the main channel's keys. */
    private static long used(GatewayInstance instance) {
        KeyPool pool = pool(instance, "main");
        return pool.keys().stream().mapToLong(k -> pool.quotaOf(k).used(KeyQuota.Window.RPM)).sum();
    }

    /** The same in Redis. */
    private long sharedRpm() {
        return MAIN_KEYS.stream().mapToLong(secret -> {
            Map<String, String> window = shared.redis.commands().hgetall("keypool:quota:main:" + Fingerprint.of(secret) + ":rpm");
            long seconds = window.entrySet().stream().filter(e -> e.getKey().chars().allMatch(Character::isDigit))
                    .mapToLong(e -> Long.parseLong(e.getValue())).sum();
            // the window's running total agrees with its seconds
            assertThat(window.getOrDefault("sum", "0")).isEqualTo(String.valueOf(seconds));
            return seconds;
        }).sum();
    }

    private GatewayInstance instance(String name) {
        return shared.start(name, """
                redis:
                  url: %s
                  # a loaded CI machine can stall a first call past the 50 ms default: Redis would count as down
                  timeout: 500ms
                channels:
                  - name: main
                    baseUrl: %s
                    models: [gpt-main]
                    keys:
                      - {key: %s, rpm: 100000}
                      - {key: %s, rpm: 100000}
                      - {key: %s, rpm: 100000}
                  - name: side
                    baseUrl: %s
                    models: [gpt-side]
                    keys:
                      - key: %s
                      - key: %s
                """.formatted(shared.redis.url(), shared.upstream.baseUrl(), MAIN_KEYS.get(0), MAIN_KEYS.get(1), MAIN_KEYS.get(2),
                shared.upstream.baseUrl(), HOT, SPARE));
    }

    private static KeyPool pool(GatewayInstance instance, String channel) {
        return instance.channel(channel).pool();
    }

    private static dev.keypool.pool.ApiKey key(GatewayInstance instance, String channel, String secret) {
        return pool(instance, channel).find(Fingerprint.of(secret)).orElseThrow();
    }

    private static KeyState stateOn(GatewayInstance instance, String secret) {
        return pool(instance, "side").stateOf(key(instance, "side", secret));
    }
}
