package dev.keypool.quota;

import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.OptionalLong;

import dev.keypool.testing.LogCapture;
import dev.keypool.testing.MutableClock;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;

class KeyQuotaTest {

    @RegisterExtension
    final LogCapture log = LogCapture.of(KeyQuota.class);

    private final MutableClock clock = new MutableClock(Instant.parse("2026-11-30T10:00:00Z"));

    private KeyQuota quota(QuotaLimits limits) {
        return quota(limits, ZoneOffset.UTC);
    }

    private KeyQuota quota(QuotaLimits limits, ZoneId zone) {
        return new KeyQuota("Key 3f2a(zhipu)", limits, zone, clock);
    }

    @Test
    void should_never_reserve_past_a_limit() {
        KeyQuota q = quota(new QuotaLimits(10L, null, null, null, null));

        int reserved = 0;
        while (q.tryReserve(0, true).isPresent()) {
            reserved++;
        }

        assertThat(reserved).isEqualTo(10);
        assertThat(q.fits(0, true)).isFalse();
    }

    @Test
    void should_keep_the_last_five_percent_for_when_no_other_key_has_room() {
        KeyQuota q = quota(new QuotaLimits(100L, null, null, null, null));
        for (int i = 0; i < 94; i++) {
            q.tryReserve(0, false).orElseThrow();
        }
        assertThat(q.weightFactor()).isEqualTo(0.25);
        assertThat(q.degraded()).isTrue();
        q.tryReserve(0, false).orElseThrow();   // the 95th

        assertThat(q.weightFactor()).isZero();
        assertThat(q.tryReserve(0, false)).isEmpty();
        assertThat(q.tryReserve(0, true)).isPresent();
    }

    @Test
    void should_let_a_batch_line_use_a_window_up_to_the_reserve_line_and_leave_the_reserve() {
        KeyQuota q = quota(new QuotaLimits(100L, null, null, null, null));
        int batchLines = 0;
        while (q.tryReserveBelowSoftLimit(0).isPresent()) {
            batchLines++;
        }

        assertThat(batchLines).isEqualTo(95);
        assertThat(q.fitsBelowSoftLimit(0)).isFalse();
        // the next batch line's room comes when the first of the minute leaves the window (its one-second bucket
        // included); an interactive call has it now
        assertThat(q.capacityBelowSoftLimitAt(0)).contains(Instant.parse("2026-11-30T10:01:01Z"));
        assertThat(q.capacityAt(0)).contains(clock.instant());
        for (int i = 0; i < 5; i++) {
            assertThat(q.tryReserve(0, true)).isPresent();
        }
        assertThat(q.tryReserve(0, true)).isEmpty();
    }

    @Test
    void should_keep_a_batch_line_with_its_tokens_at_or_below_the_reserve_line() {
        KeyQuota q = quota(new QuotaLimits(null, 1000L, null, null, null));

        assertThat(q.fitsBelowSoftLimit(951)).isFalse();
        assertThat(q.tryReserveBelowSoftLimit(950)).isPresent();
        assertThat(q.fitsBelowSoftLimit(1)).isFalse();
        assertThat(q.fits(50, true)).isTrue();
    }

    @Test
    void should_give_full_weight_below_90_percent() {
        KeyQuota q = quota(new QuotaLimits(100L, null, null, null, null));
        for (int i = 0; i < 89; i++) {
            q.tryReserve(0, false).orElseThrow();
        }

        assertThat(q.weightFactor()).isEqualTo(1.0);
        assertThat(q.degraded()).isFalse();
    }

    @Test
    void should_replace_the_token_estimate_with_the_real_usage() {
        KeyQuota q = quota(new QuotaLimits(null, 1000L, null, null, null));
        KeyQuota.Reservation r = q.tryReserve(600, true).orElseThrow();
        assertThat(q.fits(500, true)).isFalse();

        q.settle(r, OptionalLong.of(100), false);

        assertThat(q.use()).singleElement().extracting(KeyQuota.Use::used).isEqualTo(100L);
        assertThat(q.fits(900, true)).isTrue();
    }

    @Test
    void should_give_back_the_tokens_of_a_failed_call_but_keep_its_request() {
        KeyQuota q = quota(new QuotaLimits(5L, 1000L, null, null, null));
        KeyQuota.Reservation r = q.tryReserve(600, true).orElseThrow();

        q.settle(r, OptionalLong.empty(), true);

        assertThat(q.use()).extracting(KeyQuota.Use::window, KeyQuota.Use::used)
                .containsExactlyInAnyOrder(org.assertj.core.groups.Tuple.tuple(KeyQuota.Window.RPM, 1L),
                        org.assertj.core.groups.Tuple.tuple(KeyQuota.Window.TPM, 0L));
    }

    @Test
    void should_free_minute_capacity_when_the_oldest_calls_leave_the_window() {
        KeyQuota q = quota(new QuotaLimits(2L, null, null, null, null));
        q.tryReserve(0, true).orElseThrow();
        clock.advance(Duration.ofSeconds(10));
        q.tryReserve(0, true).orElseThrow();
        clock.advance(Duration.ofSeconds(5));

        Instant at = q.capacityAt(0).orElseThrow();

        assertThat(at).isEqualTo(Instant.parse("2026-11-30T10:01:01Z"));
        clock.set(at.minusMillis(1));
        assertThat(q.fits(0, true)).isFalse();
        clock.set(at);
        assertThat(q.fits(0, true)).isTrue();
    }

    @Test
    void should_reset_the_day_at_midnight_of_its_zone() {
        ZoneId shanghai = ZoneId.of("Asia/Shanghai");
        clock.set(Instant.parse("2026-11-30T15:59:00Z"));   // 23:59 in Shanghai
        KeyQuota q = quota(new QuotaLimits(null, null, 2L, null, null), shanghai);
        q.tryReserve(0, true).orElseThrow();
        q.tryReserve(0, true).orElseThrow();
        assertThat(q.capacityAt(0)).contains(Instant.parse("2026-11-30T16:00:00Z"));

        clock.set(Instant.parse("2026-11-30T16:00:00Z"));   // midnight in Shanghai, not yet in UTC

        assertThat(q.tryReserve(0, true)).isPresent();
    }

    @Test
    void should_count_the_requests_a_key_can_take_until_a_deadline() {
        KeyQuota q = quota(new QuotaLimits(3L, null, 10L, null, null));
        q.tryReserve(0, true).orElseThrow();
        clock.advance(Duration.ofSeconds(30));
        q.tryReserve(0, true).orElseThrow();
        q.tryReserve(0, true).orElseThrow();

        assertThat(q.requestRoomBy(clock.instant())).isZero();
        assertThat(q.requestRoomBy(Instant.parse("2026-11-30T10:01:01Z"))).isEqualTo(1);
        assertThat(q.requestRoomBy(Instant.parse("2026-11-30T10:01:31Z"))).isEqualTo(3);
        // the minute window serves its 3 again in each further minute, up to the day's 10 (3 taken)
        assertThat(q.requestRoomBy(Instant.parse("2026-11-30T10:02:31Z"))).isEqualTo(6);
        assertThat(q.requestRoomBy(Instant.parse("2026-11-30T10:10:00Z"))).isEqualTo(7);
        assertThat(quota(QuotaLimits.NONE).requestRoomBy(clock.instant())).isEqualTo(Long.MAX_VALUE);
    }

    @Test
    void should_never_have_capacity_for_more_tokens_than_a_limit() {
        KeyQuota q = quota(new QuotaLimits(null, 1000L, null, null, null));

        assertThat(q.capacityAt(1001)).isEmpty();
        assertThat(q.capacityAt(1000)).contains(clock.instant());
    }

    @Test
    void should_warn_once_per_period_at_80_percent_of_a_day_limit() {
        clock.set(Instant.parse("2026-11-30T10:00:00Z"));
        KeyQuota q = quota(new QuotaLimits(null, null, 10L, null, null), ZoneId.of("Asia/Shanghai"));
        for (int i = 0; i < 10; i++) {
            q.tryReserve(0, true).orElseThrow();
        }

        assertThat(log.lines()).containsExactly(
                "WARN Key 3f2a(zhipu) at 80% of rpd (8/10), resets 2026-12-01T00:00+08:00");
    }

    @Test
    void should_restore_a_saved_count_of_the_current_period_only() {
        KeyQuota q = quota(new QuotaLimits(null, null, 100L, null, 5000L));
        q.restore(KeyQuota.Window.RPD, new KeyQuota.PeriodCount(java.time.LocalDate.parse("2026-11-30"), 40));
        q.restore(KeyQuota.Window.TPM_MONTH, new KeyQuota.PeriodCount(java.time.LocalDate.parse("2026-10-01"), 4000));

        assertThat(q.periodCounts()).containsEntry(KeyQuota.Window.RPD,
                        new KeyQuota.PeriodCount(java.time.LocalDate.parse("2026-11-30"), 40))
                .containsEntry(KeyQuota.Window.TPM_MONTH,
                        new KeyQuota.PeriodCount(java.time.LocalDate.parse("2026-11-01"), 0));
    }
}
