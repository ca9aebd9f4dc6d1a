package dev.keypool.redis;

import java.time.Duration;
import java.time.Instant;
import java.util.Map;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class TenantContributionTest {

    private static final Instant TEN = Instant.parse("2026-11-30T10:00:00Z");

    private final TenantContribution mine = new TenantContribution();

    @Test
    void should_count_requests_tokens_and_spending_of_the_periods_still_counting() {
        mine.took(TEN, 100, false);
        mine.took(TEN.plusMillis(1500), 50, true);
        mine.corrected(TEN, TEN.plusSeconds(2), -60);
        mine.spent(TEN.plusSeconds(2), 250_000);

        TenantContribution.Snapshot now = mine.snapshot(TEN.plusSeconds(2));
        assertThat(now.requestsToday()).isEqualTo(2);
        assertThat(now.requestsOffline()).isEqualTo(1);
        assertThat(now.spentTodayMicros()).isEqualTo(250_000);
        assertThat(now.spentThisMonthMicros()).isEqualTo(250_000);
        assertThat(now.tokensPerSecond()).isEqualTo(Map.of(TEN.getEpochSecond(), 40L, TEN.getEpochSecond() + 1, 50L));

        // a second leaves the minute window a minute after it ended, as SlidingCounter counts it
        assertThat(mine.snapshot(TEN.plusSeconds(60)).tokensPerSecond()).containsKey(TEN.getEpochSecond());
        assertThat(mine.snapshot(TEN.plusSeconds(61)).tokensPerSecond()).doesNotContainKey(TEN.getEpochSecond());
    }

    @Test
    void should_start_a_new_utc_day_and_month_at_zero() {
        Instant lastHour = Instant.parse("2026-11-30T23:30:00Z");
        mine.took(lastHour, 0, false);
        mine.spent(lastHour, 1_000);

        TenantContribution.Snapshot nextDay = mine.snapshot(lastHour.plus(Duration.ofHours(1)));

        assertThat(nextDay.requestsToday()).isZero();
        assertThat(nextDay.spentTodayMicros()).isZero();
        assertThat(nextDay.spentThisMonthMicros()).isZero();
        mine.spent(Instant.parse("2026-12-01T12:00:00Z"), 7);
        assertThat(mine.snapshot(Instant.parse("2026-12-02T12:00:00Z")).spentThisMonthMicros()).isEqualTo(7);
    }

    @Test
    void should_forget_the_offline_requests_once_written_back() {
        mine.took(TEN, 0, true);
        TenantContribution.Snapshot written = mine.snapshot(TEN);
        mine.took(TEN, 0, true);

        mine.written(written);

        assertThat(mine.snapshot(TEN).requestsOffline()).isEqualTo(1);
        assertThat(mine.snapshot(TEN).requestsToday()).isEqualTo(2);
    }
}
