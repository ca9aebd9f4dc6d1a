package dev.keypool.redis;

import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import dev.keypool.config.RedisConfig;
import dev.keypool.quota.KeyQuota;
import dev.keypool.quota.QuotaLimits;
import dev.keypool.tenant.TenantAdmission;
import dev.keypool.tenant.TenantLimits;
import dev.keypool.testing.MutableClock;
import dev.keypool.testing.RedisServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * design §11, one round trip per request: a limited tenant's admission rides with its request's key reservation in one
 * script call to a real redis-server, all or nothing — a refused tenant takes nothing from the key, a refused key
 * nothing from the tenant.
 */
@Tag("slow")
class TenantWithKeyReservationTest {

    private final RedisServer server = RedisServer.start();
    private final List<RedisLink> links = new CopyOnWriteArrayList<>();
    private final MutableClock clock = new MutableClock(Instant.parse("2026-11-30T10:00:00.200Z"));
    private final RedisLink link = link();
    private final RedisTenantLimits tenant = RedisTenantLimits.shared("team-a", 60, 3, 10_000L, null, null, null, link, clock);

    @AfterEach
    void stop() {
        links.forEach(RedisLink::close);
        server.close();
    }

    @Test
    void should_decide_the_tenant_and_reserve_the_key_in_one_script_call() {
        KeyQuota key = quota(link, 100);
        key.tryReserve(10, false, tenant.admission(() -> 10)).orElseThrow();   // loads the script
        server.commands().configResetstat();

        for (int i = 0; i < 2; i++) {
            TenantAdmission admission = tenant.admission(() -> 10);
            assertThat(admission.decided()).isFalse();

            assertThat(key.tryReserve(10, false, admission)).isPresent();

            assertThat(admission.decision()).isInstanceOf(TenantLimits.Admitted.class);
        }
        assertThat(server.commandCalls()).containsEntry("evalsha", 2L).doesNotContainKey("eval");
        assertThat(rpmCount()).isEqualTo(3);
        assertThat(tenant.rateLimits().remainingRequests()).isZero();
        assertThat(tenant.rateLimits().remainingTokens()).isEqualTo(10_000 - 30);
    }

    @Test
    void should_take_nothing_from_the_key_when_the_tenant_refuses() {
        KeyQuota key = quota(link, 100);
        for (int i = 0; i < 3; i++) {
            key.tryReserve(0, false, tenant.admission(() -> 0)).orElseThrow();
        }

        TenantAdmission fourth = tenant.admission(() -> 0);
        assertThat(key.tryReserve(0, false, fourth)).isEmpty();

        assertThat(fourth.refused()).isTrue();
        assertThat(((TenantLimits.Refused) fourth.decision()).retryAfter()).isEqualTo(Duration.ofSeconds(1));
        // neither in Redis nor in this instance's mirror
        assertThat(rpmCount()).isEqualTo(3);
        assertThat(key.used(KeyQuota.Window.RPM)).isEqualTo(3);
    }

    @Test
    void should_take_nothing_from_the_tenant_when_the_key_refuses() {
        // another instance used the key up: this one's mirror does not know yet, Redis does
        KeyQuota elsewhere = quota(link(), 2);
        elsewhere.tryReserve(0, false).orElseThrow();
        elsewhere.tryReserve(0, false).orElseThrow();
        KeyQuota key = quota(link, 2);

        TenantAdmission admission = tenant.admission(() -> 0);
        assertThat(key.tryReserve(0, true, admission)).isEmpty();

        // undecided: the request may still find another key, and its tenant's bucket is whole
        assertThat(admission.decided()).isFalse();
        assertThat(tenant.rateLimits().remainingRequests()).isEqualTo(3);
        assertThat(key.used(KeyQuota.Window.RPM)).isEqualTo(2);
    }

    @Test
    void should_leave_the_tenant_to_decide_alone_while_redis_is_away() {
        KeyQuota key = quota(link, 100);
        server.kill();

        TenantAdmission admission = tenant.admission(() -> 0);
        assertThat(key.tryReserve(0, false, admission)).isPresent();

        assertThat(admission.decided()).isFalse();
        assertThat(admission.decideAlone()).isTrue();
    }

    private KeyQuota quota(RedisLink on, long rpm) {
        return new KeyQuota("Key 3f2a(zhipu)", new QuotaLimits(rpm, null, null, null, null), ZoneOffset.UTC, clock,
                new RedisQuotaLedger(on, "zhipu", "3f2a"));
    }

    private long rpmCount() {
        return Long.parseLong(server.commands().hget("test:quota:zhipu:3f2a:rpm", "sum"));
    }

    private RedisLink link() {
        RedisLink made = new RedisLink(new RedisConfig(server.url(), "test", Duration.ofMillis(500)));
        links.add(made);
        made.check();
        return made;
    }
}
