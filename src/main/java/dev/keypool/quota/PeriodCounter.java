package dev.keypool.quota;

import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneId;
import java.time.ZonedDateTime;

/**
 * A sum over one calendar period (a day or a month) in a time zone, starting again at zero when the next period
 * begins. Not thread-safe: its owner guards it.
 */
final class PeriodCounter {

    /** The calendar periods quotas are counted over. */
    enum Period {
        DAY, MONTH;

        /** The first day of the period {@code date} is in. */
        LocalDate start(LocalDate date) {
            return this == DAY ? date : date.withDayOfMonth(1);
        }

        LocalDate next(LocalDate start) {
            return this == DAY ? start.plusDays(1) : start.plusMonths(1);
        }
    }

    private final Period period;
    private final ZoneId zone;
    private LocalDate current;
    private long amount;

    PeriodCounter(Period period, ZoneId zone) {
        this.period = period;
        this.zone = zone;
    }

    void add(Instant now, long delta) {
        roll(now);
        amount = Math.max(0, amount + delta);
    }

    long sum(Instant now) {
        roll(now);
        return amount;
    }

    /** The start of the period {@code now} is in, as a date in the zone. */
    LocalDate periodStart(Instant now) {
        return period.start(now.atZone(zone).toLocalDate());
    }

    /** When the period {@code now} is in ends and the count starts again. */
    ZonedDateTime resetsAt(Instant now) {
        return period.next(periodStart(now)).atStartOfDay(zone);
    }

    /** Puts back a count saved earlier; one from another period than now's is stale and ignored. */
    void restore(Instant now, LocalDate savedPeriodStart, long savedAmount) {
        roll(now);
        if (savedPeriodStart.equals(current)) {
            amount = Math.max(amount, savedAmount);
        }
    }

    private void roll(Instant now) {
        LocalDate start = periodStart(now);
        if (!start.equals(current)) {
            current = start;
            amount = 0;
        }
    }

}
