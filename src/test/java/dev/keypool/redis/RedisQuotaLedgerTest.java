package dev.keypool.redis;

import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.concurrent.CopyOnWriteArrayList;

import dev.keypool.config.RedisConfig;
import dev.keypool.quota.KeyQuota;
import dev.keypool.quota.QuotaLimits;
import dev.keypool.testing.MutableClock;
import dev.keypool.testing.RedisServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The quota windows counted in a real redis-server: two instances' quotas of one key (each its own link, as two
 * gateways) never take more than the key's limit together, and the sliding and calendar rules are those of the local
 * counters.
 */
@Tag("slow")
class RedisQuotaLedgerTest {

    private static final ZoneId SHANGHAI = ZoneId.of("Asia/Shanghai");

    private final RedisServer server = RedisServer.start();
    private final List<RedisLink> links = new CopyOnWriteArrayList<>();
    private final MutableClock clock = new MutableClock(Instant.parse("2026-11-30T10:00:00.200Z"));

    @AfterEach
    void stop() {
        links.forEach(RedisLink::close);
        server.close();
    }

    @Test
    void should_never_take_past_the_limit_across_instances() {
        KeyQuota a = quota(new QuotaLimits(5L, null, null, null, null), ZoneOffset.UTC);
        KeyQuota b = quota(new QuotaLimits(5L, null, null, null, null), ZoneOffset.UTC);

        int taken = 0;
        for (int i = 0; i < 10; i++) {
            taken += (i % 2 == 0 ? a : b).tryReserve(0, true).isPresent() ? 1 : 0;
        }

        assertThat(taken).isEqualTo(5);
        // the refused side mirrors the shared use: it would not pick the key, and knows when room comes back
        assertThat(a.used(KeyQuota.Window.RPM)).isEqualTo(5);
        assertThat(b.used(KeyQuota.Window.RPM)).isEqualTo(5);
        assertThat(b.capacityAt(0)).contains(Instant.parse("2026-11-30T10:01:01Z"));
    }

    @Test
    void should_free_a_sliding_window_after_60_seconds_as_the_local_counter_does() {
        KeyQuota a = quota(new QuotaLimits(2L, null, null, null, null), ZoneOffset.UTC);
        KeyQuota b = quota(new QuotaLimits(2L, null, null, null, null), ZoneOffset.UTC);
        assertThat(a.tryReserve(0, true)).isPresent();
        clock.advance(Duration.ofSeconds(30));
        assertThat(a.tryReserve(0, true)).isPresent();

        // 10:01:00.2: the first call's second is 60 s behind, still counted
        clock.set(Instant.parse("2026-11-30T10:01:00.200Z"));
        assertThat(b.tryReserve(0, true)).isEmpty();
        clock.set(Instant.parse("2026-11-30T10:01:01.000Z"));
        assertThat(b.tryReserve(0, true)).isPresent();
        assertThat(b.tryReserve(0, true)).isEmpty();
    }

    @Test
    void should_take_requests_and_tokens_in_every_window_or_in_none() {
        QuotaLimits limits = new QuotaLimits(100L, 1000L, null, null, null);
        KeyQuota a = quota(limits, ZoneOffset.UTC);
        KeyQuota b = quota(limits, ZoneOffset.UTC);
        assertThat(a.tryReserve(700, true)).isPresent();

        // 700 + 400 > 1000 tokens: refused, and the request is not counted either
        assertThat(b.tryReserve(400, true)).isEmpty();
        assertThat(server.commands().hget("test:quota:zhipu:3f2a:rpm", "sum")).isEqualTo("1");
        assertThat(b.tryReserve(300, true)).isPresent();
    }

    @Test
    void should_count_a_window_an_older_gateway_wrote_without_its_sum() {
        // seconds only, no sum and no first second: one second out of the window, one in it
        long second = clock.instant().getEpochSecond();
        String key = "test:quota:zhipu:3f2a:rpm";
        server.commands().hset(key, Map.of(Long.toString(second - 70), "3", Long.toString(second - 10), "2"));
        KeyQuota a = quota(new QuotaLimits(3L, null, null, null, null), ZoneOffset.UTC);

        assertThat(a.tryReserve(0, true)).isPresent();
        assertThat(a.tryReserve(0, true)).isEmpty();

        assertThat(server.commands().hget(key, "sum")).isEqualTo("3");
        assertThat(server.commands().hexists(key, Long.toString(second - 70))).isFalse();
    }

    @Test
    void should_settle_tokens_in_the_bucket_of_the_reservation() {
        QuotaLimits limits = new QuotaLimits(null, 1000L, null, 5000L, null);
        KeyQuota a = quota(limits, SHANGHAI);
        KeyQuota.Reservation r = a.tryReserve(800, true).orElseThrow();
        clock.advance(Duration.ofSeconds(3));

        a.settle(r, OptionalLong.of(100), false);

        String second = Long.toString(r.at().getEpochSecond());
        await().atMost(Duration.ofSeconds(2)).untilAsserted(() -> {
            assertThat(server.commands().hget("test:quota:zhipu:3f2a:tpm", second)).isEqualTo("100");
            // the calendar day of Asia/Shanghai: 10:00 UTC is already Dec 1st there
            assertThat(server.commands().get("test:quota:zhipu:3f2a:tpd:2026-11-30")).isEqualTo("100");
        });
        assertThat(server.commands().pttl("test:quota:zhipu:3f2a:tpd:2026-11-30")).isGreaterThan(Duration.ofDays(1).toMillis());
        // the window's total follows the correction: another instance finds 900 tokens of room, not 200
        KeyQuota b = quota(limits, SHANGHAI);
        assertThat(b.tryReserve(901, true)).isEmpty();
        assertThat(b.tryReserve(900, true)).isPresent();
    }

    @Test
    void should_send_the_settles_of_a_busy_key_together() {
        KeyQuota a = quota(new QuotaLimits(null, 1_000_000L, null, null, null), ZoneOffset.UTC);
        List<KeyQuota.Reservation> calls = new ArrayList<>();
        for (int i = 0; i < 50; i++) {
            calls.add(a.tryReserve(100, true).orElseThrow());
        }
        server.commands().configResetstat();

        calls.forEach(r -> a.settle(r, OptionalLong.of(40), false));

        String second = Long.toString(calls.get(0).at().getEpochSecond());
        await().atMost(Duration.ofSeconds(2)).untilAsserted(() ->
                assertThat(server.commands().hget("test:quota:zhipu:3f2a:tpm", second)).isEqualTo(String.valueOf(50 * 40)));
        // 50 corrections of -60 tokens each, gathered for a few milliseconds: far fewer than 50 writes
        assertThat(server.commandCalls().get("evalsha")).isBetween(1L, 5L);
    }

    @Test
    void should_count_a_calendar_period_until_it_ends_in_the_zone() {
        KeyQuota a = quota(new QuotaLimits(null, null, 2L, null, null), SHANGHAI);
        KeyQuota b = quota(new QuotaLimits(null, null, 2L, null, null), SHANGHAI);
        assertThat(a.tryReserve(0, true)).isPresent();
        assertThat(a.tryReserve(0, true)).isPresent();
        assertThat(b.tryReserve(0, true)).isEmpty();
        assertThat(b.capacityAt(0)).contains(Instant.parse("2026-11-30T16:00:00Z"));

        clock.set(Instant.parse("2026-11-30T16:00:00Z"));
        assertThat(b.tryReserve(0, true)).isPresent();
        assertThat(server.commands().get("test:quota:zhipu:3f2a:rpd:2026-12-01")).isEqualTo("1");
    }

    @Test
    void should_write_back_the_higher_use_and_mirror_the_shared_one() {
        QuotaLimits limits = new QuotaLimits(10L, null, 100L, null, null);
        KeyQuota a = quota(limits, ZoneOffset.UTC);
        KeyQuota b = quota(limits, ZoneOffset.UTC);
        for (int i = 0; i < 4; i++) {
            a.tryReserve(0, true);
        }
        // Redis lost everything (a restart); b goes on counting there
        server.commands().flushall();
        for (int i = 0; i < 3; i++) {
            b.tryReserve(0, true);
        }

        a.shareUse();
        b.shareUse();

        // merged by the highest, never counted twice: a's 4 calls, of which b's 3 know nothing
        assertThat(server.commands().get("test:quota:zhipu:3f2a:rpd:2026-11-30")).isEqualTo("4");
        assertThat(b.used(KeyQuota.Window.RPD)).isEqualTo(4);
        assertThat(b.used(KeyQuota.Window.RPM)).isEqualTo(4);
        assertThat(a.used(KeyQuota.Window.RPM)).isEqualTo(4);
    }

    @Test
    void should_correct_in_redis_only_what_redis_took() {
        KeyQuota a = quota(new QuotaLimits(null, 100_000L, null, null, null), ZoneOffset.UTC);
        server.kill();
        KeyQuota.Reservation alone = a.tryReserve(500, true).orElseThrow();
        server.restart();
        RedisLink link = links.get(0);
        await().atMost(Duration.ofSeconds(10)).until(() -> {
            link.check();
            return link.up();
        });
        clock.advance(Duration.ofSeconds(2));
        KeyQuota.Reservation shared = a.tryReserve(500, true).orElseThrow();

        a.settle(alone, OptionalLong.of(100), false);
        a.settle(shared, OptionalLong.of(100), false);

        assertThat(alone.shared()).isFalse();
        await().atMost(Duration.ofSeconds(2)).untilAsserted(() -> assertThat(
                server.commands().hget("test:quota:zhipu:3f2a:tpm", Long.toString(shared.at().getEpochSecond()))).isEqualTo("100"));
        // the call Redis never took gives nothing back there: -400 would let others past the limit
        assertThat(server.commands().hget("test:quota:zhipu:3f2a:tpm", Long.toString(alone.at().getEpochSecond()))).isNull();
    }

    @Test
    void should_correct_a_day_in_the_period_the_call_was_counted_in() {
        clock.set(Instant.parse("2026-11-30T23:59:58Z"));
        KeyQuota a = quota(new QuotaLimits(null, null, null, 100_000L, null), ZoneOffset.UTC);
        KeyQuota.Reservation r = a.tryReserve(800, true).orElseThrow();
        clock.advance(Duration.ofSeconds(5));

        a.settle(r, OptionalLong.empty(), true);

        await().atMost(Duration.ofSeconds(2)).untilAsserted(() ->
                assertThat(server.commands().get("test:quota:zhipu:3f2a:tpd:2026-11-30")).isEqualTo("0"));
        assertThat(server.commands().exists("test:quota:zhipu:3f2a:tpd:2026-12-01")).isZero();
    }

    @Test
    void should_decide_locally_when_redis_is_gone() {
        KeyQuota a = quota(new QuotaLimits(2L, null, null, null, null), ZoneOffset.UTC);
        server.kill();

        assertThat(a.tryReserve(0, true)).isPresent();
        assertThat(a.tryReserve(0, true)).isPresent();
        assertThat(a.tryReserve(0, true)).isEmpty();
    }

    private KeyQuota quota(QuotaLimits limits, ZoneId zone) {
        RedisLink link = new RedisLink(new RedisConfig(server.url(), "test", Duration.ofMillis(500)));
        links.add(link);
        link.check();
        return new KeyQuota("Key 3f2a(zhipu)", limits, zone, clock, new RedisQuotaLedger(link, "zhipu", "3f2a"));
    }
}
