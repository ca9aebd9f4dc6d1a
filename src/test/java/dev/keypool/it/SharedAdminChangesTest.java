package dev.keypool.it;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Future;
import java.util.concurrent.Executors;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.CountDownLatch;

import dev.keypool.breaker.BreakerState;
import dev.keypool.gateway.Channel;
import dev.keypool.pool.Fingerprint;
import dev.keypool.pool.KeyState;
import dev.keypool.testing.GatewayInstance;
import dev.keypool.testing.MutableClock;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/** Runtime admin changes made through one instance's admin API reach the others through Redis (design §11). */
@Tag("slow")
class SharedAdminChangesTest {

    private static final String ONE = Fingerprint.of("sk-main-one-4f7a");
    private static final String TWO = Fingerprint.of("sk-main-two-9b2c");

    @TempDir
    Path dir;
    private final MutableClock clock = new MutableClock();
    private SharedGateways gateways;

    @BeforeEach
    void share() {
        gateways = new SharedGateways(dir, clock);
    }

    @AfterEach
    void stop() {
        gateways.close();
    }

    private static int weight(GatewayInstance instance, String fingerprint) {
        return instance.channel("main").pool().find(fingerprint).orElseThrow().weight();
    }

    /** An operator's PATCH of a key's weight through {@code instance}'s admin API, answered 200. */
    private static void patchWeight(GatewayInstance instance, String fingerprint, int weight) {
        assertThat(SharedGateways.admin(instance, "PATCH", "/admin/keys/" + fingerprint, "{\"weight\":" + weight + "}")
                .statusCode()).isEqualTo(200);
    }

    private static KeyState state(GatewayInstance instance, String fingerprint) {
        Channel main = instance.channel("main");
        return main.pool().stateOf(main.pool().find(fingerprint).orElseThrow());
    }

    @Test
    void should_apply_a_change_made_on_one_instance_on_the_others_and_on_one_started_later() {
        GatewayInstance a = gateways.start("a");
        GatewayInstance b = gateways.start("b");

        patchWeight(a, ONE, 7);
        assertThat(SharedGateways.admin(a, "POST", "/admin/keys/" + TWO + "/disable", null).statusCode()).isEqualTo(200);

        await().atMost(Duration.ofMillis(100)).pollDelay(Duration.ZERO).pollInterval(Duration.ofMillis(2)).untilAsserted(() -> {
            assertThat(weight(b, ONE)).isEqualTo(7);
            assertThat(state(b, TWO)).isEqualTo(KeyState.DISABLED);
        });
        // B keeps them in its own state.dir too, for a restart without Redis (the disable is in force on B through the
        // key states before the admin changes' own message has been written to B's file)
        await().atMost(Duration.ofSeconds(2)).untilAsserted(() ->
                assertThat(dir.resolve("b/state/admin.json")).content().contains(TWO).contains("\"weight\" : 7"));

        GatewayInstance c = gateways.start("c");
        assertThat(weight(c, ONE)).isEqualTo(7);
        assertThat(state(c, TWO)).isEqualTo(KeyState.DISABLED);

        // and back: enabled through C, active again on A and B
        assertThat(SharedGateways.admin(c, "POST", "/admin/keys/" + TWO + "/enable", null).statusCode()).isEqualTo(200);
        await().atMost(Duration.ofMillis(100)).pollDelay(Duration.ZERO).pollInterval(Duration.ofMillis(2)).untilAsserted(() -> {
            assertThat(state(a, TWO)).isEqualTo(KeyState.ACTIVE);
            assertThat(state(b, TWO)).isEqualTo(KeyState.ACTIVE);
        });
        gateways.assertNoSecretInRedis();
    }

    @Test
    void should_keep_both_changes_made_on_two_instances_at_the_same_moment() throws Exception {
        GatewayInstance a = gateways.start("a");
        GatewayInstance b = gateways.start("b");
        ExecutorService operators = Executors.newFixedThreadPool(2);
        try {
            for (int round = 1; round <= 5; round++) {
                int one = round + 1;
                int two = round + 10;
                CountDownLatch go = new CountDownLatch(1);
                Future<Integer> onA = operators.submit(() -> {
                    go.await();
                    return SharedGateways.admin(a, "PATCH", "/admin/keys/" + ONE, "{\"weight\":" + one + "}").statusCode();
                });
                Future<Integer> onB = operators.submit(() -> {
                    go.await();
                    return SharedGateways.admin(b, "PATCH", "/admin/keys/" + TWO, "{\"weight\":" + two + "}").statusCode();
                });
                go.countDown();
                assertThat(onA.get()).isEqualTo(200);
                assertThat(onB.get()).isEqualTo(200);

                await().atMost(Duration.ofSeconds(2)).untilAsserted(() -> {
                    for (GatewayInstance instance : List.of(a, b)) {
                        assertThat(weight(instance, ONE)).isEqualTo(one);
                        assertThat(weight(instance, TWO)).isEqualTo(two);
                    }
                });
            }
        } finally {
            operators.shutdownNow();
        }
    }

    @Test
    void should_keep_the_changes_two_instances_made_during_the_same_outage() {
        GatewayInstance a = gateways.start("a");
        GatewayInstance b = gateways.start("b");
        patchWeight(a, ONE, 2);
        await().atMost(Duration.ofSeconds(2)).until(() -> weight(b, ONE) == 2);

        gateways.redis.kill();
        // two operators, each on an instance of their own, each changing another key
        patchWeight(a, ONE, 5);
        patchWeight(b, TWO, 9);
        gateways.redis.restart();

        // each instance writes back the entry it changed, not its whole view: both changes stand everywhere
        await().atMost(Duration.ofSeconds(15)).untilAsserted(() -> {
            for (GatewayInstance instance : List.of(a, b)) {
                assertThat(weight(instance, ONE)).isEqualTo(5);
                assertThat(weight(instance, TWO)).isEqualTo(9);
            }
        });
        GatewayInstance c = gateways.start("c");
        assertThat(weight(c, ONE)).isEqualTo(5);
        assertThat(weight(c, TWO)).isEqualTo(9);
        gateways.assertNoSecretInRedis();
    }

    @Test
    void should_share_a_change_made_while_redis_was_down_after_a_restart_meanwhile() {
        GatewayInstance a = gateways.start("a");
        GatewayInstance b = gateways.start("b");
        patchWeight(a, ONE, 2);
        await().atMost(Duration.ofSeconds(2)).until(() -> weight(b, ONE) == 2);

        gateways.redis.kill();
        patchWeight(a, ONE, 6);
        a.close();
        // Redis back, and B's older view written back into it before A starts again
        gateways.redis.restart();
        await().atMost(Duration.ofSeconds(15)).until(() -> gateways.redis.commands().get("keypool:admin:changes") != null);

        GatewayInstance again = gateways.start("a");

        // A's change from before its restart is still a change, not an old view that Redis's overrides
        await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> {
            assertThat(weight(again, ONE)).isEqualTo(6);
            assertThat(weight(b, ONE)).isEqualTo(6);
        });
        assertThat(dir.resolve("a/state/admin.unshared-base.json")).doesNotExist();
    }

    @Test
    void should_share_a_breaker_forced_open_while_redis_was_down_once_it_returns() {
        GatewayInstance a = gateways.start("a");
        GatewayInstance b = gateways.start("b");

        gateways.redis.kill();
        assertThat(SharedGateways.admin(a, "POST", "/admin/channels/main/breaker",
                "{\"state\":\"OPEN\",\"reason\":\"provider maintenance\"}").statusCode()).isEqualTo(200);
        patchWeight(a, ONE, 4);
        assertThat(b.chat("m", null).headers().firstValue("X-KeyPool-Channel")).contains("main");
        assertThat(b.channel("main").breaker().state()).isEqualTo(BreakerState.CLOSED);

        gateways.redis.restart();

        await().atMost(Duration.ofSeconds(15)).untilAsserted(() -> {
            assertThat(b.channel("main").breaker().forcedOpen()).isTrue();
            assertThat(weight(b, ONE)).isEqualTo(4);
        });
        assertThat(b.chat("m", null).headers().firstValue("X-KeyPool-Channel")).contains("backup");
        gateways.assertNoSecretInRedis();
    }
}
