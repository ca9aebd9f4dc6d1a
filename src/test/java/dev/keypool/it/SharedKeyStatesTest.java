package dev.keypool.it;

import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.temporal.ChronoUnit;

import dev.keypool.pool.ApiKey;
import dev.keypool.pool.Fingerprint;
import dev.keypool.pool.KeyPool;
import dev.keypool.pool.KeyState;
import dev.keypool.testing.GatewayInstance;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/** Two gateway instances sharing one redis-server: a key's state changed on one is the state on the other. */
@Tag("slow")
class SharedKeyStatesTest {

    private static final String HOT = "sk-proj-Hot4kQ9vLm2Xw7Rt8Yp3Zs6Ua1Bc5De0Fg9Hi2Jk4Lm7No";
    private static final String SPARE = "sk-proj-Spare8Tu1Vw3Xy5Za7Bc9De2Fg4Hi6Jk8Lm0No3Pq5Rs7Tu";

    @TempDir
    Path dir;

    private GatewayInstance a;
    private GatewayInstance b;
    private SharedGateways shared;

    @BeforeEach
    void share() {
        shared = new SharedGateways(dir, Clock.systemUTC());
    }

    @AfterEach
    void stop() {
        shared.close();
    }

    @Test
    void should_skip_on_b_within_100_ms_a_key_cooled_by_a_429_on_a() {
        start();
        shared.upstream.answer(HOT, 429, "30", null);

        // round-robin: one of the first two requests on A meets the 429 and is retried on the spare key
        for (int i = 0; i < 2; i++) {
            assertThat(a.chat("gpt-shared", null).statusCode()).isEqualTo(200);
        }
        assertThat(stateOn(a, HOT)).isEqualTo(KeyState.COOLING);

        await().atMost(Duration.ofMillis(100)).pollDelay(Duration.ZERO).pollInterval(Duration.ofMillis(2))
                .until(() -> stateOn(b, HOT) == KeyState.COOLING);
        // with the deadline A set (Retry-After 30 s), not one of B's own
        assertThat(pool(b).coolingUntil(key(b, HOT)))
                .isEqualTo(pool(a).coolingUntil(key(a, HOT)).map(at -> at.truncatedTo(ChronoUnit.MILLIS)));
        int hotCalls = shared.upstream.hits(HOT);
        for (int i = 0; i < 4; i++) {
            HttpResponse<String> r = b.chat("gpt-shared", null);
            assertThat(r.statusCode()).isEqualTo(200);
            assertThat(r.headers().firstValue("X-KeyPool-Key")).contains(Fingerprint.of(SPARE));
        }
        assertThat(shared.upstream.hits(HOT)).isEqualTo(hotCalls);
        assertThat(shared.redis.commands().hget("keypool:keys:shared", Fingerprint.of(HOT))).startsWith("COOLING ");
    }

    @Test
    void should_share_a_disable_and_an_enable_by_the_operator() {
        start();

        pool(a).controls().disable(Fingerprint.of(HOT));
        await().atMost(Duration.ofMillis(100)).pollDelay(Duration.ZERO).pollInterval(Duration.ofMillis(2))
                .until(() -> stateOn(b, HOT) == KeyState.DISABLED);
        assertThat(pool(b).disabledByOperator(key(b, HOT))).isTrue();

        pool(b).controls().enable(Fingerprint.of(HOT));
        await().atMost(Duration.ofMillis(100)).pollDelay(Duration.ZERO).pollInterval(Duration.ofMillis(2))
                .until(() -> stateOn(a, HOT) == KeyState.ACTIVE);
    }

    @Test
    void should_share_a_drain_and_its_end() {
        start();

        pool(a).controls().drain(Fingerprint.of(SPARE));
        await().atMost(Duration.ofMillis(100)).pollDelay(Duration.ZERO).pollInterval(Duration.ofMillis(2))
                .until(() -> key(b, SPARE).draining());
        for (int i = 0; i < 3; i++) {
            assertThat(b.chat("gpt-shared", null).headers().firstValue("X-KeyPool-Key")).contains(Fingerprint.of(HOT));
        }

        pool(b).controls().enable(Fingerprint.of(SPARE));
        await().atMost(Duration.ofMillis(100)).pollDelay(Duration.ZERO).pollInterval(Duration.ofMillis(2))
                .until(() -> !key(a, SPARE).draining());
    }

    @Test
    void should_find_the_shared_states_when_an_instance_starts() {
        a = instance("a");
        shared.upstream.answer(HOT, 429, "30", null);
        a.chat("gpt-shared", null);
        a.chat("gpt-shared", null);
        assertThat(stateOn(a, HOT)).isEqualTo(KeyState.COOLING);

        b = instance("b");

        assertThat(stateOn(b, HOT)).isEqualTo(KeyState.COOLING);
    }

    private void start() {
        a = instance("a");
        b = instance("b");
    }

    private GatewayInstance instance(String name) {
        return shared.start(name, """
                redis:
                  url: %s
                  # a loaded CI machine can stall a first call past the 50 ms default: Redis would count as down
                  timeout: 500ms
                channels:
                  - name: shared
                    baseUrl: %s
                    models: [gpt-shared]
                    keys:
                      - key: %s
                      - key: %s
                """.formatted(shared.redis.url(), shared.upstream.baseUrl(), HOT, SPARE));
    }

    private static KeyPool pool(GatewayInstance instance) {
        return instance.channel("shared").pool();
    }

    private static ApiKey key(GatewayInstance instance, String secret) {
        return pool(instance).find(Fingerprint.of(secret)).orElseThrow();
    }

    private static KeyState stateOn(GatewayInstance instance, String secret) {
        return pool(instance).stateOf(key(instance, secret));
    }
}
