package dev.keypool.tenant;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.function.LongSupplier;

import dev.keypool.quota.KeyQuota;
import dev.keypool.quota.QuotaLimits;
import dev.keypool.quota.SpendLimit;
import io.github.bucket4j.Bucket;
import io.github.bucket4j.TimeMeter;

/**
 * {@link TenantLimits} of one gateway instance: the request bucket is bucket4j's, the token and day windows the
 * same {@link KeyQuota} a key's limits use (used up to 100 %, a tenant has no soft limit), the budget a
 * {@link SpendLimit}. Days and months are UTC. Thread-safe: one tenant's admissions are serialised.
 */
public final class LocalTenantLimits implements TenantLimits {

    private final String name;
    private final Long rpm;
    private final long burst;
    private final Bucket bucket;
    private final KeyQuota quota;
    private final SpendLimit budget;
    private final Clock clock;

    /**
     * @param rpm   requests per minute refilling the bucket, null for none
     * @param burst the bucket's size (used only with {@code rpm})
     */
    public LocalTenantLimits(String name, Integer rpm, int burst, Long tpm, Integer rpd, Double budgetDaily,
                             Double budgetMonthly, Clock clock) {
        this.name = name;
        this.rpm = rpm == null ? null : rpm.longValue();
        this.burst = burst;
        this.clock = clock;
        this.bucket = rpm == null ? null : Bucket.builder()
                .addLimit(limit -> limit.capacity(burst).refillGreedy(rpm, Duration.ofMinutes(1)))
                .withCustomTimePrecision(new ClockTime(clock))
                .build();
        this.quota = new KeyQuota("Tenant " + name, new QuotaLimits(null, tpm, rpd == null ? null : rpd.longValue(),
                null, null), ZoneOffset.UTC, clock);
        this.budget = new SpendLimit(budgetDaily, budgetMonthly, ZoneOffset.UTC, clock);
    }

    @Override
    public synchronized Decision admit(LongSupplier estimatedTokens) {
        Instant now = clock.instant();
        Optional<Instant> broke = budget.exhaustedUntil();
        if (broke.isPresent()) {
            return new Refused(Refusal.BUDGET_EXCEEDED, "Tenant " + name + " has used up its budget ("
                    + budgetText() + "); it resets at " + broke.get(), Duration.between(now, broke.get()), rateLimits());
        }
        if (bucket != null && !bucket.tryConsume(1)) {
            Duration refill = Duration.ofNanos(bucket.estimateAbilityToConsume(1).getNanosToWaitForRefill());
            return new Refused(Refusal.RATE_LIMITED, "Tenant " + name + " is over its rate limit of " + rpm
                    + " requests per minute (burst " + burst + ")", refill, rateLimits());
        }
        if (!quota.limited()) {
            return new Admitted(rateLimits(), null);
        }
        long tokens = quota.countsTokens() ? estimatedTokens.getAsLong() : 0;
        Optional<KeyQuota.Reservation> reservation = quota.tryReserve(tokens, true);
        if (reservation.isEmpty()) {
            if (bucket != null) {
                bucket.addTokens(1);   // the request does not go: it costs no place in the bucket either
            }
            Optional<Instant> room = quota.capacityAt(tokens);
            Duration wait = room.map(at -> Duration.between(now, at)).orElse(Duration.ofMinutes(1));
            return new Refused(Refusal.RATE_LIMITED, "Tenant " + name + " is over its " + fullWindow(tokens)
                    + (room.isEmpty() ? " (the request alone, " + tokens + " tokens, is larger)" : ""), wait, rateLimits());
        }
        return new Admitted(rateLimits(), reservation.get());
    }

    @Override
    public void settle(Admitted admitted, OptionalLong usedTokens, boolean answered, double costUsd) {
        if (admitted.reservation() != null) {
            quota.settle(admitted.reservation(), usedTokens, !answered);
        }
        budget.spend(costUsd);
    }

    @Override
    public void continueFrom(TenantLimits previous) {
        if (previous instanceof LocalTenantLimits old) {
            budget.continueFrom(old.budget);
            old.quota.periodCounts().forEach(quota::restore);
        }
    }

    @Override
    public void restoreSpent(double todayUsd, double thisMonthUsd) {
        budget.restore(todayUsd, thisMonthUsd);
    }

    @Override
    public RateLimits rateLimits() {
        Instant now = clock.instant();
        Long tpm = quota.limit(KeyQuota.Window.TPM);
        long available = bucket == null ? 0 : bucket.getAvailableTokens();
        Duration untilFull = bucket == null ? Duration.ZERO
                : Duration.ofNanos(bucket.estimateAbilityToConsume(burst).getNanosToWaitForRefill());
        return new RateLimits(rpm, available, untilFull,
                tpm, tpm == null ? 0 : Math.max(0, tpm - quota.used(KeyQuota.Window.TPM)),
                tpm == null ? Duration.ZERO : Duration.between(now, quota.freeAt(KeyQuota.Window.TPM)));
    }

    @Override
    public double spentToday() {
        return budget.spentToday();
    }

    @Override
    public double spentThisMonth() {
        return budget.spentThisMonth();
    }

    /** The request windows and their use, for status. */
    public List<KeyQuota.Use> use() {
        return quota.use();
    }

    private String fullWindow(long tokens) {
        Long tpm = quota.limit(KeyQuota.Window.TPM);
        if (tpm != null && quota.used(KeyQuota.Window.TPM) + tokens > tpm) {
            return "token limit of " + tpm + " tokens per minute";
        }
        return "limit of " + quota.limit(KeyQuota.Window.RPD) + " requests per day";
    }

    private String budgetText() {
        StringBuilder text = new StringBuilder();
        if (budget.dailyUsd() != null) {
            text.append(String.format(Locale.ROOT, "%.2f USD a day, %.4f spent today", budget.dailyUsd(), budget.spentToday()));
        }
        if (budget.monthlyUsd() != null) {
            text.append(text.isEmpty() ? "" : "; ").append(String.format(Locale.ROOT, "%.2f USD a month, %.4f spent this month",
                    budget.monthlyUsd(), budget.spentThisMonth()));
        }
        return text.toString();
    }

    /** bucket4j's time from the gateway's clock (tests move it). */
    private record ClockTime(Clock clock) implements TimeMeter {
        @Override
        public long currentTimeNanos() {
            Instant now = clock.instant();
            return now.getEpochSecond() * 1_000_000_000L + now.getNano();
        }

        @Override
        public boolean isWallClockBased() {
            return true;
        }
    }
}
