package dev.keypool.redis;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.concurrent.CopyOnWriteArrayList;

import dev.keypool.config.RedisConfig;
import dev.keypool.tenant.TenantLimits;
import dev.keypool.testing.MutableClock;
import dev.keypool.testing.RedisServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A tenant's limits shared by two instances (two links to one real redis-server, one clock): what one takes the other
 * cannot, all or nothing, one script call per admission, and the local limits while Redis is away.
 */
@Tag("slow")
class RedisTenantLimitsTest {

    private final MutableClock clock = new MutableClock(Instant.parse("2026-11-30T10:00:00Z"));
    private final RedisServer server = RedisServer.start();
    private final List<RedisLink> links = new CopyOnWriteArrayList<>();

    @AfterEach
    void stop() {
        links.forEach(RedisLink::close);
        server.close();
    }

    @Test
    void should_share_the_burst_between_instances_then_refill_one_request_per_second() {
        RedisTenantLimits a = limits(link(), 60, 10, null, null, null, null);
        RedisTenantLimits b = limits(link(), 60, 10, null, null, null, null);

        for (int i = 0; i < 10; i++) {
            TenantLimits.Decision decision = (i % 2 == 0 ? a : b).admit(() -> 0);
            assertThat(decision).as("request %d of the burst", i).isInstanceOf(TenantLimits.Admitted.class);
            // the headers count down across both instances
            assertThat(decision.rateLimits().remainingRequests()).isEqualTo(9 - i);
        }
        TenantLimits.Refused refused = (TenantLimits.Refused) a.admit(() -> 0);
        assertThat(refused.refusal().code()).isEqualTo("tenant_rate_limited");
        assertThat(refused.retryAfter()).isEqualTo(Duration.ofSeconds(1));
        assertThat(refused.rateLimits().headers()).containsEntry("x-ratelimit-limit-requests", "60")
                .containsEntry("x-ratelimit-remaining-requests", "0").containsEntry("x-ratelimit-reset-requests", "10s");
        assertThat(b.admit(() -> 0)).isInstanceOf(TenantLimits.Refused.class);

        clock.advance(Duration.ofMillis(999));
        assertThat(b.admit(() -> 0)).isInstanceOf(TenantLimits.Refused.class);
        clock.advance(Duration.ofMillis(1));
        assertThat(b.admit(() -> 0)).isInstanceOf(TenantLimits.Admitted.class);
        assertThat(a.admit(() -> 0)).isInstanceOf(TenantLimits.Refused.class);
        assertThat(a.rateLimits().headers()).containsEntry("x-ratelimit-remaining-requests", "0");
    }

    @Test
    void should_take_one_round_trip_per_admission() {
        RedisTenantLimits a = limits(link(), 600, 100, 100_000L, 1000, 10.0, 100.0);
        a.admit(() -> 5);
        server.commands().configResetstat();

        for (int i = 0; i < 20; i++) {
            a.admit(() -> 5);
        }

        // Redis counts the commands a script runs too: those are the only others
        Map<String, Long> calls = server.commandCalls();
        assertThat(calls).containsEntry("evalsha", 20L);
        assertThat(calls.keySet()).isSubsetOf("evalsha", "hvals", "hmget", "hgetall", "hdel", "hset", "hincrby", "pexpire");
    }

    @Test
    void should_not_ask_redis_to_admit_a_tenant_without_limits_but_share_its_spending() {
        RedisTenantLimits a = limits(link(), null, 1, null, null, null, null);
        RedisTenantLimits b = limits(link(), null, 1, null, null, null, null);
        server.commands().configResetstat();

        TenantLimits.Decision admitted = a.admit(() -> 5);

        assertThat(admitted).isInstanceOf(TenantLimits.Admitted.class);
        assertThat(admitted.rateLimits().headers()).isEmpty();
        assertThat(server.commandCalls()).isEmpty();
        settle(a, admitted, 0.5);
        await().atMost(Duration.ofSeconds(2)).until(() -> b.spentToday() == 0.5);
    }

    @Test
    void should_refuse_over_the_shared_token_limit_and_reconcile_with_the_real_usage() {
        RedisTenantLimits a = limits(link(), null, 1, 1_000L, null, null, null);
        RedisTenantLimits b = limits(link(), null, 1, 1_000L, null, null, null);

        TenantLimits.Admitted big = (TenantLimits.Admitted) a.admit(() -> 800);
        assertThat(big.rateLimits().headers()).containsEntry("x-ratelimit-limit-tokens", "1000")
                .containsEntry("x-ratelimit-remaining-tokens", "200")
                .containsEntry("x-ratelimit-reset-tokens", "1m1s")
                .doesNotContainKey("x-ratelimit-limit-requests");
        TenantLimits.Refused refused = (TenantLimits.Refused) b.admit(() -> 300);
        assertThat(refused.message()).contains("1000 tokens per minute");
        assertThat(refused.retryAfter()).isEqualTo(Duration.ofSeconds(61));

        // the answer used 100 tokens, not the 800 estimated: the rest is free again, on the other instance too
        a.settle(big, OptionalLong.of(100), true, 0);
        await().atMost(Duration.ofSeconds(2)).until(() -> b.rateLimits().remainingTokens() == 900);
        assertThat(b.admit(() -> 300)).isInstanceOf(TenantLimits.Admitted.class);
        assertThat(a.rateLimits().remainingTokens()).isEqualTo(600);
    }

    @Test
    void should_not_spend_the_bucket_on_a_request_another_limit_refuses() {
        RedisTenantLimits a = limits(link(), 60, 2, 100L, null, null, null);

        assertThat(a.admit(() -> 500)).isInstanceOf(TenantLimits.Refused.class);

        assertThat(a.rateLimits().remainingRequests()).isEqualTo(2);
        assertThat(a.rateLimits().remainingTokens()).isEqualTo(100);
    }

    @Test
    void should_refuse_past_the_shared_daily_requests_until_the_utc_day_ends() {
        RedisTenantLimits a = limits(link(), null, 1, null, 3, null, null);
        RedisTenantLimits b = limits(link(), null, 1, null, 3, null, null);
        a.admit(() -> 0);
        b.admit(() -> 0);
        a.admit(() -> 0);

        TenantLimits.Refused refused = (TenantLimits.Refused) b.admit(() -> 0);

        assertThat(refused.message()).contains("3 requests per day");
        assertThat(refused.retryAfter()).isEqualTo(Duration.ofHours(14));
        clock.advance(Duration.ofHours(14));
        assertThat(b.admit(() -> 0)).isInstanceOf(TenantLimits.Admitted.class);
    }

    @Test
    void should_refuse_on_one_instance_the_budget_spent_on_the_other() {
        RedisTenantLimits a = limits(link(), null, 1, null, null, 1.0, 10.0);
        RedisTenantLimits b = limits(link(), null, 1, null, null, 1.0, 10.0);
        TenantLimits.Admitted admitted = (TenantLimits.Admitted) a.admit(() -> 0);

        a.settle(admitted, OptionalLong.of(10), true, 1.25);

        await().atMost(Duration.ofSeconds(2)).until(() -> b.spentToday() == 1.25);
        TenantLimits.Refused refused = (TenantLimits.Refused) b.admit(() -> 0);
        assertThat(refused.refusal().code()).isEqualTo("budget_exceeded");
        assertThat(refused.message()).contains("1.00 USD a day, 1.2500 spent today");
        assertThat(refused.retryAfter()).isEqualTo(Duration.ofHours(14));
        assertThat(b.spentThisMonth()).isEqualTo(1.25);
        // the next day the monthly budget still has room
        clock.advance(Duration.ofHours(14));
        assertThat(b.admit(() -> 0)).isInstanceOf(TenantLimits.Admitted.class);
    }

    @Test
    void should_admit_by_the_local_limits_while_redis_is_down_and_write_back_when_it_returns() {
        RedisLink linkA = link();
        RedisTenantLimits a = limits(linkA, 60, 5, null, 100, 10.0, null);
        RedisTenantLimits b = limits(link(), 60, 5, null, 100, 10.0, null);
        settle(a, a.admit(() -> 0), 0.5);
        settle(b, b.admit(() -> 0), 0.25);
        await().atMost(Duration.ofSeconds(2)).until(() -> a.spentToday() == 0.75);

        server.kill();
        // no failure: the local bucket of A (5) decides, Redis is not even tried after the first failed call
        for (int i = 0; i < 5; i++) {
            TenantLimits.Decision decision = a.admit(() -> 0);
            assertThat(decision).as("request %d while Redis is down", i).isInstanceOf(TenantLimits.Admitted.class);
            settle(a, decision, 0.5);
        }
        assertThat(a.admit(() -> 0)).isInstanceOf(TenantLimits.Refused.class);
        assertThat(linkA.up()).isFalse();

        server.restart();
        await().atMost(Duration.ofSeconds(10)).until(() -> {
            linkA.check();
            return linkA.up();
        });

        // A's requests (1 before, 5 while down) and spending (0.5 + 2.5) are in Redis again; B's were lost with it
        Map<String, String> dump = server.dump();
        assertThat(dump).containsEntry("test:tenant:team-a:requests:2026-11-30", "{" + linkA.instance() + "=6}");
        assertThat(a.spentToday()).isEqualTo(3.0);
        // the 5 taken while down are gone from the shared bucket
        assertThat(a.rateLimits().remainingRequests()).isZero();
        assertThat(a.admit(() -> 0)).isInstanceOf(TenantLimits.Refused.class);
    }

    @Test
    void should_write_its_counts_back_to_a_redis_that_lost_them_without_counting_twice() {
        RedisLink linkA = link();
        RedisTenantLimits a = limits(linkA, null, 1, null, 3, null, null);
        a.admit(() -> 0);
        a.admit(() -> 0);

        server.commands().flushall();
        linkA.check();
        // a second write-back (Redis answering again) does not add the same requests again
        a.writeBack();

        assertThat(a.admit(() -> 0)).isInstanceOf(TenantLimits.Admitted.class);
        assertThat(a.admit(() -> 0)).isInstanceOf(TenantLimits.Refused.class);
    }

    private RedisTenantLimits limits(RedisLink link, Integer rpm, int burst, Long tpm, Integer rpd, Double daily,
                                     Double monthly) {
        RedisTenantLimits limits = RedisTenantLimits.shared("team-a", rpm, burst, tpm, rpd, daily, monthly, link, clock);
        link.check();
        return limits;
    }

    private RedisLink link() {
        RedisLink link = new RedisLink(new RedisConfig(server.url(), "test", Duration.ofMillis(200)));
        links.add(link);
        return link;
    }

    private static void settle(RedisTenantLimits limits, TenantLimits.Decision decision, double cost) {
        limits.settle((TenantLimits.Admitted) decision, OptionalLong.of(10), true, cost);
    }
}
