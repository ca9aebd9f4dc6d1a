package dev.keypool.tenant;

import java.time.Duration;
import java.time.Instant;
import java.util.OptionalLong;

import dev.keypool.testing.MutableClock;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class LocalTenantLimitsTest {

    private final MutableClock clock = new MutableClock(Instant.parse("2026-11-30T10:00:00Z"));

    private LocalTenantLimits limits(Integer rpm, int burst, Long tpm, Integer rpd, Double daily, Double monthly) {
        return new LocalTenantLimits("team-a", rpm, burst, tpm, rpd, daily, monthly, clock);
    }

    @Test
    void should_let_a_burst_through_at_once_then_one_request_per_second() {
        LocalTenantLimits limits = limits(60, 10, null, null, null, null);

        for (int i = 0; i < 10; i++) {
            assertThat(limits.admit(() -> 0)).as("request %d of the burst", i).isInstanceOf(TenantLimits.Admitted.class);
        }
        TenantLimits.Decision eleventh = limits.admit(() -> 0);
        assertThat(eleventh).isInstanceOf(TenantLimits.Refused.class);
        TenantLimits.Refused refused = (TenantLimits.Refused) eleventh;
        assertThat(refused.refusal().code()).isEqualTo("tenant_rate_limited");
        assertThat(refused.retryAfter()).isEqualTo(Duration.ofSeconds(1));

        clock.advance(Duration.ofMillis(999));
        assertThat(limits.admit(() -> 0)).isInstanceOf(TenantLimits.Refused.class);
        clock.advance(Duration.ofMillis(1));
        assertThat(limits.admit(() -> 0)).isInstanceOf(TenantLimits.Admitted.class);
        assertThat(limits.admit(() -> 0)).isInstanceOf(TenantLimits.Refused.class);
        clock.advance(Duration.ofSeconds(1));
        assertThat(limits.admit(() -> 0)).isInstanceOf(TenantLimits.Admitted.class);
    }

    @Test
    void should_report_the_bucket_as_openai_rate_limit_headers() {
        LocalTenantLimits limits = limits(60, 10, null, null, null, null);

        TenantLimits.Decision first = limits.admit(() -> 0);
        assertThat(first.rateLimits().headers()).containsEntry("x-ratelimit-limit-requests", "60")
                .containsEntry("x-ratelimit-remaining-requests", "9")
                // one request taken, refilled at one a second
                .containsEntry("x-ratelimit-reset-requests", "1s")
                .doesNotContainKey("x-ratelimit-limit-tokens");
        for (int i = 0; i < 4; i++) {
            limits.admit(() -> 0);
        }
        assertThat(limits.rateLimits().headers()).containsEntry("x-ratelimit-remaining-requests", "5")
                .containsEntry("x-ratelimit-reset-requests", "5s");
    }

    @Test
    void should_refuse_over_the_token_limit_and_reconcile_with_the_real_usage() {
        LocalTenantLimits limits = limits(null, 1, 1_000L, null, null, null);

        TenantLimits.Admitted big = (TenantLimits.Admitted) limits.admit(() -> 800);
        assertThat(big.rateLimits().headers()).containsEntry("x-ratelimit-limit-tokens", "1000")
                .containsEntry("x-ratelimit-remaining-tokens", "200")
                // the sliding minute counts in whole seconds: a call leaves it within 61 s
                .containsEntry("x-ratelimit-reset-tokens", "1m1s")
                .doesNotContainKey("x-ratelimit-limit-requests");
        TenantLimits.Decision refused = limits.admit(() -> 300);
        assertThat(refused).isInstanceOf(TenantLimits.Refused.class);
        assertThat(((TenantLimits.Refused) refused).message()).contains("1000 tokens per minute");

        // the answer used 100 tokens, not the 800 estimated: the rest is free again
        limits.settle(big, OptionalLong.of(100), true, 0);
        assertThat(limits.admit(() -> 300)).isInstanceOf(TenantLimits.Admitted.class);
        assertThat(limits.rateLimits().remainingTokens()).isEqualTo(600);
    }

    @Test
    void should_give_back_the_tokens_of_a_request_that_got_no_answer() {
        LocalTenantLimits limits = limits(null, 1, 1_000L, null, null, null);

        TenantLimits.Admitted admitted = (TenantLimits.Admitted) limits.admit(() -> 900);
        limits.settle(admitted, OptionalLong.empty(), false, 0);

        assertThat(limits.rateLimits().remainingTokens()).isEqualTo(1_000);
    }

    @Test
    void should_not_spend_the_bucket_on_a_request_the_token_limit_refuses() {
        LocalTenantLimits limits = limits(60, 2, 100L, null, null, null);

        assertThat(limits.admit(() -> 500)).isInstanceOf(TenantLimits.Refused.class);

        assertThat(limits.rateLimits().remainingRequests()).isEqualTo(2);
    }

    @Test
    void should_refuse_past_the_daily_requests_until_the_utc_day_ends() {
        LocalTenantLimits limits = limits(null, 1, null, 2, null, null);
        limits.admit(() -> 0);
        limits.admit(() -> 0);

        TenantLimits.Refused refused = (TenantLimits.Refused) limits.admit(() -> 0);

        assertThat(refused.retryAfter()).isEqualTo(Duration.ofHours(14));
        clock.advance(Duration.ofHours(14));
        assertThat(limits.admit(() -> 0)).isInstanceOf(TenantLimits.Admitted.class);
    }

    @Test
    void should_refuse_with_budget_exceeded_once_the_daily_budget_is_spent() {
        LocalTenantLimits limits = limits(null, 1, null, null, 1.0, 10.0);
        TenantLimits.Admitted admitted = (TenantLimits.Admitted) limits.admit(() -> 0);
        limits.settle(admitted, OptionalLong.of(10), true, 1.25);

        TenantLimits.Refused refused = (TenantLimits.Refused) limits.admit(() -> 0);

        assertThat(refused.refusal().code()).isEqualTo("budget_exceeded");
        assertThat(refused.retryAfter()).isEqualTo(Duration.ofHours(14));
        assertThat(limits.spentToday()).isEqualTo(1.25);
        clock.advance(Duration.ofHours(14));
        assertThat(limits.admit(() -> 0)).isInstanceOf(TenantLimits.Admitted.class);
        // a new month began at midnight UTC on Dec 1
        assertThat(limits.spentThisMonth()).isZero();
    }

    @Test
    void should_refuse_for_the_month_when_the_monthly_budget_is_spent() {
        LocalTenantLimits limits = limits(null, 1, null, null, null, 2.0);
        TenantLimits.Admitted admitted = (TenantLimits.Admitted) limits.admit(() -> 0);
        limits.settle(admitted, OptionalLong.empty(), true, 2.0);

        TenantLimits.Refused refused = (TenantLimits.Refused) limits.admit(() -> 0);

        assertThat(refused.refusal()).isEqualTo(TenantLimits.Refusal.BUDGET_EXCEEDED);
        assertThat(refused.message()).contains("2.00 USD a month");
        assertThat(refused.retryAfter()).isEqualTo(Duration.ofHours(14));   // Dec 1 00:00 UTC
    }
}
