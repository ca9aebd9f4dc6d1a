package dev.keypool.redis;

import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.YearMonth;
import java.time.ZoneOffset;
import java.util.Collections;
import java.util.SortedMap;
import java.util.TreeMap;

import dev.keypool.window.SlidingCounter;

/**
 * What one gateway instance has taken from one tenant's shared limits in the periods still counting (requests today,
 * tokens per second of the last minute, micro-USD spent today and this month), whether Redis or its local limits
 * admitted it: what it writes back when Redis answers again, down or emptied meanwhile. Days and months are UTC, as the
 * tenant's limits count them. Thread-safe.
 */
public final class TenantContribution {

    /** Seconds a token amount stays in the minute window: the minute and the bucket it is in (as SlidingCounter). */
    static final long WINDOW_SECONDS = 60;

    /** This instance's counts at one moment, to be written back. */
    public record Snapshot(long requestsToday, long spentTodayMicros, long spentThisMonthMicros, long requestsOffline,
                           SortedMap<Long, Long> tokensPerSecond) {
    }

    private LocalDate day;
    private YearMonth month;
    private long requestsToday;
    private long spentTodayMicros;
    private long spentThisMonthMicros;
    private long requestsOffline;
    private final SlidingCounter tokens = new SlidingCounter(Duration.ofSeconds(WINDOW_SECONDS));

    /** An admitted request and its estimated tokens; {@code offline} when Redis was away and the local limits let it in. */
    public synchronized void took(Instant now, long tokens, boolean offline) {
        roll(now);
        requestsToday++;
        if (offline) {
            requestsOffline++;
        }
        addTokens(now, now, tokens);
    }

    /** An estimate made at {@code reservedAt} corrected by {@code delta} tokens (the real usage, or given back). */
    public synchronized void corrected(Instant reservedAt, Instant now, long delta) {
        roll(now);
        addTokens(reservedAt, now, delta);
    }

    public synchronized void spent(Instant now, long micros) {
        roll(now);
        spentTodayMicros += micros;
        spentThisMonthMicros += micros;
    }

    public synchronized Snapshot snapshot(Instant now) {
        roll(now);
        return new Snapshot(requestsToday, spentTodayMicros, spentThisMonthMicros, requestsOffline,
                Collections.unmodifiableSortedMap(new TreeMap<>(tokens.buckets(now))));
    }

    /** {@code written} reached Redis: the requests admitted offline in it are in the shared bucket now. */
    public synchronized void written(Snapshot written) {
        requestsOffline = Math.max(0, requestsOffline - written.requestsOffline());
    }

    /** Whether {@code at}'s second still counts in the minute window at {@code now}. */
    public synchronized boolean inWindow(Instant at, Instant now) {
        return tokens.counts(at, now);
    }

    private void addTokens(Instant at, Instant now, long amount) {
        tokens.add(at, now, amount);
    }

    /** Starts a new day or month at zero (the minute window forgets its old seconds by itself). */
    private void roll(Instant now) {
        LocalDate today = now.atOffset(ZoneOffset.UTC).toLocalDate();
        if (!today.equals(day)) {
            day = today;
            requestsToday = 0;
            spentTodayMicros = 0;
        }
        YearMonth thisMonth = YearMonth.from(today);
        if (!thisMonth.equals(month)) {
            month = thisMonth;
            spentThisMonthMicros = 0;
        }
    }
}
