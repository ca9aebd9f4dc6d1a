package dev.keypool.quota;

import java.time.Clock;
import java.time.Instant;
import java.time.ZoneId;
import java.util.Optional;

/**
 * A budget in USD per calendar day and per calendar month (design §7 {@code budget}), either may be absent: what has
 * been spent, and until when spending is refused once a period's budget is used up. Kept in millionths of a dollar
 * so that the counts add exactly. Thread-safe.
 */
public final class SpendLimit {

    private static final double MICROS = 1_000_000;

    private final Long dailyMicros;
    private final Long monthlyMicros;
    private final PeriodCounter day;
    private final PeriodCounter month;
    private final Clock clock;

    /** @param dailyUsd null for no daily budget; {@code monthlyUsd} likewise */
    public SpendLimit(Double dailyUsd, Double monthlyUsd, ZoneId zone, Clock clock) {
        this.dailyMicros = dailyUsd == null ? null : Math.round(dailyUsd * MICROS);
        this.monthlyMicros = monthlyUsd == null ? null : Math.round(monthlyUsd * MICROS);
        this.day = new PeriodCounter(PeriodCounter.Period.DAY, zone);
        this.month = new PeriodCounter(PeriodCounter.Period.MONTH, zone);
        this.clock = clock;
    }

    /** When the budget that is used up frees again (the later period end if both are); empty while there is room. */
    public synchronized Optional<Instant> exhaustedUntil() {
        Instant now = clock.instant();
        Optional<Instant> until = Optional.empty();
        if (dailyMicros != null && day.sum(now) >= dailyMicros) {
            until = Optional.of(day.resetsAt(now).toInstant());
        }
        if (monthlyMicros != null && month.sum(now) >= monthlyMicros) {
            until = Optional.of(month.resetsAt(now).toInstant());
        }
        return until;
    }

    public synchronized void spend(double usd) {
        if (usd > 0) {
            Instant now = clock.instant();
            long micros = Math.round(usd * MICROS);
            day.add(now, micros);
            month.add(now, micros);
        }
    }

    /** Takes over what {@code previous} spent this day and month, for a budget whose amounts a reload changed. */
    public void continueFrom(SpendLimit previous) {
        Instant now = clock.instant();
        long today;
        long thisMonth;
        synchronized (previous) {
            today = previous.day.sum(now);
            thisMonth = previous.month.sum(now);
        }
        synchronized (this) {
            day.restore(now, day.periodStart(now), today);
            month.restore(now, month.periodStart(now), thisMonth);
        }
    }

    /**
     * What was spent this day and this month before these counts existed (the request log read back at start): a
     * count already higher stays.
     */
    public synchronized void restore(double todayUsd, double thisMonthUsd) {
        Instant now = clock.instant();
        day.restore(now, day.periodStart(now), Math.round(todayUsd * MICROS));
        month.restore(now, month.periodStart(now), Math.round(thisMonthUsd * MICROS));
    }

    /** USD spent today, in the limit's zone. */
    public synchronized double spentToday() {
        return day.sum(clock.instant()) / MICROS;
    }

    /** USD spent this month, in the limit's zone. */
    public synchronized double spentThisMonth() {
        return month.sum(clock.instant()) / MICROS;
    }

    public Double dailyUsd() {
        return dailyMicros == null ? null : dailyMicros / MICROS;
    }

    public Double monthlyUsd() {
        return monthlyMicros == null ? null : monthlyMicros / MICROS;
    }
}
