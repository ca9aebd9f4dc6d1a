package dev.keypool.quota;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneId;
import java.time.ZonedDateTime;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.function.BooleanSupplier;

import dev.keypool.window.SlidingCounter;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The use of one key against its limits (design §6). A call reserves one request and its estimated tokens before
 * it goes out ({@link #tryReserve}), never past a limit; the estimate is replaced by the real usage afterwards
 * ({@link #settle}). Near a limit the key gets less traffic ({@link #weightFactor}): a quarter of its weight from 90 %,
 * none from 95 % while other keys have room. Thread-safe.
 */
public final class KeyQuota {

    /** The windows a key can be limited over, with their keypool.yaml names. */
    public enum Window {
        RPM("rpm"), TPM("tpm"), RPD("rpd"), TPD("tpd"), TPM_MONTH("tpmMonth");

        private final String configName;

        Window(String configName) {
            this.configName = configName;
        }

        public String configName() {
            return configName;
        }

        boolean counts(Kind kind) {
            return (this == RPM || this == RPD) == (kind == Kind.REQUESTS);
        }

        boolean calendar() {
            return this == RPD || this == TPD || this == TPM_MONTH;
        }
    }

    /** One window's use now, for status and metrics. */
    public record Use(Window window, long used, long limit, String resetsAt) {

        public double ratio() {
            return (double) used / limit;
        }
    }

    /** What a call reserved: released or corrected by {@link #settle} once it is over. */
    public record Reservation(Instant at, long tokens, boolean shared) {

        /** A reservation in this instance's count only. */
        public Reservation(Instant at, long tokens) {
            this(at, tokens, false);
        }
    }

    /** From this share of a window on, a key gets a quarter of its weight. */
    public static final double DEGRADED = 0.90;
    /** From this share of a window on, a key gets new calls only when no key of its pool is below it. */
    public static final double RESERVED = 0.95;
    /** A day or month window passing this share is logged once per period. */
    static final double ALERT = 0.80;

    private enum Kind { REQUESTS, TOKENS }

    private static final Logger LOG = LoggerFactory.getLogger(KeyQuota.class);

    private final String name;
    private final Clock clock;
    private final ZoneId zone;
    /** Has the last word on each reservation when gateway instances share their quotas; this object is its mirror. */
    private final QuotaLedger ledger;
    // asked before every call without the lock; changed only with the limits
    private volatile boolean limited;
    private volatile boolean countsTokens;
    private final Map<Window, Long> limits = new EnumMap<>(Window.class);
    private final Map<Window, SlidingCounter> minute = new EnumMap<>(Window.class);
    private final Map<Window, PeriodCounter> calendar = new EnumMap<>(Window.class);
    /** The period start for which each calendar window has been alerted, so that it is said once per period. */
    private final Map<Window, LocalDate> alerted = new EnumMap<>(Window.class);

    /**
     * @param name how log lines name the key: {@code Key <fingerprint>(<channel>)}, never the secret
     * @param zone where days and months begin and end
     */
    public KeyQuota(String name, QuotaLimits limits, ZoneId zone, Clock clock) {
        this(name, limits, zone, clock, QuotaLedger.LOCAL);
    }

    /**
     * @param ledger the count shared with other gateway instances: a reservation this quota allows must also be taken
     *               there, and this quota then mirrors the shared use ({@link QuotaLedger#LOCAL} when alone)
     */
    public KeyQuota(String name, QuotaLimits limits, ZoneId zone, Clock clock, QuotaLedger ledger) {
        this.name = name;
        this.clock = clock;
        this.zone = zone;
        this.ledger = Objects.requireNonNull(ledger, "ledger");
        changeLimits(limits);
    }

    /**
     * New limits, live (a reload, an operator): a window that stays limited keeps what it counted, a newly limited
     * one starts empty, one no longer limited is dropped.
     */
    public synchronized void changeLimits(QuotaLimits newLimits) {
        limits.clear();
        put(Window.RPM, newLimits.rpm());
        put(Window.TPM, newLimits.tpm());
        put(Window.RPD, newLimits.rpd());
        put(Window.TPD, newLimits.tpd());
        put(Window.TPM_MONTH, newLimits.tpmMonth());
        minute.keySet().retainAll(limits.keySet());
        calendar.keySet().retainAll(limits.keySet());
        for (Window w : limits.keySet()) {
            switch (w) {
                case RPM, TPM -> minute.computeIfAbsent(w, k -> new SlidingCounter(Duration.ofMinutes(1)));
                case RPD, TPD -> calendar.computeIfAbsent(w, k -> new PeriodCounter(PeriodCounter.Period.DAY, zone));
                case TPM_MONTH -> calendar.computeIfAbsent(w, k -> new PeriodCounter(PeriodCounter.Period.MONTH, zone));
            }
        }
        limited = !limits.isEmpty();
        countsTokens = newLimits.countsTokens();
    }

    private void put(Window window, Long limit) {
        if (limit != null) {
            limits.put(window, limit);
        }
    }

    public boolean limited() {
        return limited;
    }

    public boolean countsTokens() {
        return countsTokens;
    }

    /** Whether a call of {@code tokens} fits now; {@code reserve} lets it use the last 5 % of each window. */
    public synchronized boolean fits(long tokens, boolean reserve) {
        Instant now = clock.instant();
        for (Map.Entry<Window, Long> limit : limits.entrySet()) {
            long used = used(limit.getKey(), now);
            long amount = amount(limit.getKey(), tokens);
            if (used + amount > limit.getValue() || (!reserve && used >= RESERVED * limit.getValue())) {
                return false;
            }
        }
        return true;
    }

    /**
     * Whether a call of {@code tokens} fits below the soft limit: every window stays at or under {@link #RESERVED} of
     * its limit with it. What a batch line may use (design §12); the reserve above it is left to interactive requests.
     */
    public synchronized boolean fitsBelowSoftLimit(long tokens) {
        Instant now = clock.instant();
        for (Map.Entry<Window, Long> limit : limits.entrySet()) {
            // the reserve line, not DEGRADED: interactive requests keep the 5 % above it; a batch stopped at 90 % left
            // another 5 % of every window idle whenever interactive traffic did not need it (bench/batch.sh)
            if (used(limit.getKey(), now) + amount(limit.getKey(), tokens) > RESERVED * limit.getValue()) {
                return false;
            }
        }
        return true;
    }

    /**
     * Reserves one request and {@code tokens} if {@link #fitsBelowSoftLimit} says so, atomically, and if the shared
     * count agrees ({@link #tryReserve}).
     */
    public Optional<Reservation> tryReserveBelowSoftLimit(long tokens) {
        return tryReserveBelowSoftLimit(tokens, null);
    }

    /** {@link #tryReserveBelowSoftLimit(long)} with a {@code companion} for the shared count ({@link #tryReserve(long, boolean, CompanionTake)}). */
    public Optional<Reservation> tryReserveBelowSoftLimit(long tokens, CompanionTake companion) {
        return tryReserve(tokens, () -> fitsBelowSoftLimit(tokens), RESERVED, false, companion);
    }

    /**
     * Reserves one request and {@code tokens} if {@link #fits} says so, atomically. With a shared count (several
     * gateway instances) that count must take the call too, by the same rule; when it refuses, the reservation is
     * undone and this quota is brought up to the shared use, so that selection and waiting see it. When the shared
     * count cannot be asked, this quota's decision stands.
     */
    public Optional<Reservation> tryReserve(long tokens, boolean reserve) {
        return tryReserve(tokens, reserve, null);
    }

    /**
     * {@link #tryReserve(long, boolean)}, asking the shared count to decide {@code companion} (null for none) in the
     * same call; when it refuses the companion, nothing is reserved. A companion the shared count did not decide
     * (alone, or out of reach) is left to its owner.
     */
    public Optional<Reservation> tryReserve(long tokens, boolean reserve, CompanionTake companion) {
        return tryReserve(tokens, () -> fits(tokens, reserve), 1.0, !reserve, companion);
    }

    /** Reserves here when {@code fits}, then asks the shared count by the same rule ({@code share}, {@code stopAtReserve}). */
    private Optional<Reservation> tryReserve(long tokens, BooleanSupplier fits, double share, boolean stopAtReserve,
                                             CompanionTake companion) {
        Reservation reservation;
        List<QuotaLedger.WindowAmount> asked;
        synchronized (this) {
            if (!fits.getAsBoolean()) {
                return Optional.empty();
            }
            reservation = reserve(tokens);
            asked = ledgerWindows(reservation.at(), tokens, true, share, stopAtReserve);
        }
        return confirm(reservation, asked, companion);
    }

    /** Asks the shared count (outside the lock: a round trip) for a reservation made here. */
    private Optional<Reservation> confirm(Reservation reservation, List<QuotaLedger.WindowAmount> asked,
                                          CompanionTake companion) {
        if (ledger == QuotaLedger.LOCAL) {
            return Optional.of(reservation);
        }
        Optional<QuotaLedger.Answer> answer = ledger.take(reservation.at(), asked, companion);
        if (answer.isEmpty()) {
            return Optional.of(reservation);
        }
        synchronized (this) {
            if (!answer.get().taken()) {
                undo(reservation);
            }
            mirror(asked, answer.get());
        }
        // only what the shared count took is corrected there when the call is over
        return answer.get().taken() ? Optional.of(new Reservation(reservation.at(), reservation.tokens(), true))
                : Optional.empty();
    }

    /**
     * A reservation whose call never goes out (its companion was refused after it was made) is given back whole: its
     * request and its tokens, here and in the shared count when that took it.
     */
    public void cancel(Reservation reservation) {
        List<QuotaLedger.WindowAmount> given;
        synchronized (this) {
            undo(reservation);
            given = new ArrayList<>();
            if (reservation.shared()) {
                for (Map.Entry<Window, Long> limit : limits.entrySet()) {
                    given.add(ledgerWindow(limit.getKey(), reservation.at(), -amount(limit.getKey(), reservation.tokens()),
                            limit.getValue(), -1));
                }
            }
        }
        if (!given.isEmpty()) {
            ledger.adjust(reservation.at(), clock.instant(), given);
        }
    }

    /** Takes a reservation's request and tokens out of this quota's windows. Called with the lock held. */
    private void undo(Reservation reservation) {
        Instant now = clock.instant();
        for (Window w : limits.keySet()) {
            add(w, reservation.at(), now, -amount(w, reservation.tokens()));
        }
    }

    /**
     * Writes this key's use to the shared count (it was lost, or out of reach while this instance counted alone) and
     * mirrors the shared use: each window ends at the higher of the two. Nothing when there is no shared count.
     */
    public void shareUse() {
        if (ledger == QuotaLedger.LOCAL) {
            return;
        }
        Instant now = clock.instant();
        List<QuotaLedger.WindowAmount> windows;
        synchronized (this) {
            windows = new ArrayList<>();
            for (Window w : limits.keySet()) {
                QuotaLedger.WindowAmount window = ledgerWindow(w, now, used(w, now), -1, -1);
                windows.add(w.calendar() ? window : new QuotaLedger.WindowAmount(w, null, null, window.amount(), -1, -1,
                        minute.get(w).buckets(now)));
            }
        }
        if (windows.isEmpty()) {
            return;
        }
        Optional<QuotaLedger.Answer> answer = ledger.writeBack(now, windows);
        if (answer.isPresent()) {
            synchronized (this) {
                mirror(windows, answer.get());
            }
        }
    }

    /** Raises this quota's windows to the shared use (each sliding bucket, each period count, to the higher). */
    private void mirror(List<QuotaLedger.WindowAmount> asked, QuotaLedger.Answer answer) {
        Instant now = clock.instant();
        for (int i = 0; i < asked.size() && i < answer.use().size(); i++) {
            QuotaLedger.WindowAmount window = asked.get(i);
            QuotaLedger.Use use = answer.use().get(i);
            if (!limits.containsKey(window.window())) {
                continue;   // the limits changed meanwhile
            }
            if (window.window().calendar()) {
                calendar.get(window.window()).restore(now, window.period(), use.total());
            } else {
                SlidingCounter counter = minute.get(window.window());
                use.buckets().forEach((second, amount) -> counter.atLeast(Instant.ofEpochSecond(second), now, amount));
            }
        }
    }

    /**
     * Every limited window as the shared count is asked about a call of {@code tokens} ({@code requestCounts}: the
     * request too, else only the tokens of token windows): refused past {@code share} of a limit, and, when
     * {@code stopAtReserve}, from {@link #RESERVED} of it on.
     */
    private List<QuotaLedger.WindowAmount> ledgerWindows(Instant now, long tokens, boolean requestCounts, double share,
                                                         boolean stopAtReserve) {
        if (ledger == QuotaLedger.LOCAL) {
            return List.of();
        }
        List<QuotaLedger.WindowAmount> windows = new ArrayList<>();
        for (Map.Entry<Window, Long> limit : limits.entrySet()) {
            Window w = limit.getKey();
            if (!requestCounts && !w.counts(Kind.TOKENS)) {
                continue;
            }
            windows.add(ledgerWindow(w, now, amount(w, tokens), share * limit.getValue(),
                    stopAtReserve ? RESERVED * limit.getValue() : -1));
        }
        return windows;
    }

    private QuotaLedger.WindowAmount ledgerWindow(Window w, Instant now, long amount, double cap, double stop) {
        return w.calendar()
                ? new QuotaLedger.WindowAmount(w, calendar.get(w).periodStart(now), calendar.get(w).resetsAt(now).toInstant(),
                        amount, cap, stop, Map.of())
                : new QuotaLedger.WindowAmount(w, null, null, amount, cap, stop, Map.of());
    }

    private Reservation reserve(long tokens) {
        Instant now = clock.instant();
        for (Window w : limits.keySet()) {
            add(w, now, now, amount(w, tokens));
        }
        alertIfDue(now);
        return new Reservation(now, tokens);
    }

    /**
     * A reserved call is over: its tokens become {@code usedTokens} when the provider reported them; when it did
     * not, a call that got an answer keeps its estimate and a failed one gives it back. The request stays counted:
     * the provider counted it too.
     */
    public synchronized void settle(Reservation reservation, OptionalLong usedTokens, boolean failed) {
        long delta = usedTokens.isPresent() ? usedTokens.getAsLong() - reservation.tokens()
                : failed ? -reservation.tokens() : 0;
        if (delta == 0) {
            return;
        }
        Instant now = clock.instant();
        for (Window w : limits.keySet()) {
            if (w.counts(Kind.TOKENS)) {
                add(w, reservation.at(), now, delta);
            }
        }
        alertIfDue(now);
        if (reservation.shared()) {
            // the windows of the call's time: a day or month correction belongs to the period the call was counted in
            ledger.adjust(reservation.at(), now, ledgerWindows(reservation.at(), delta, false, 1.0, false));
        }
    }

    /** 1 below 90 % of every window, 1/4 from 90 %, 0 from 95 % (then the key is a reserve, see {@link #fits}). */
    public synchronized double weightFactor() {
        double ratio = highestRatio();
        return ratio >= RESERVED ? 0 : ratio >= DEGRADED ? 0.25 : 1;
    }

    /** Whether any window is at 90 % or more: the key shows as degraded. */
    public synchronized boolean degraded() {
        return highestRatio() >= DEGRADED;
    }

    /**
     * The earliest moment a call of {@code tokens} would fit, with the reserve: now if it fits now; empty if it
     * never can (more tokens than a limit).
     */
    public synchronized Optional<Instant> capacityAt(long tokens) {
        return capacityAt(tokens, 1.0);
    }

    /** {@link #capacityAt(long)} below the soft limit, for a batch line ({@link #fitsBelowSoftLimit}). */
    public synchronized Optional<Instant> capacityBelowSoftLimitAt(long tokens) {
        return capacityAt(tokens, RESERVED);
    }

    private Optional<Instant> capacityAt(long tokens, double share) {
        Instant now = clock.instant();
        Instant latest = now;
        for (Map.Entry<Window, Long> limit : limits.entrySet()) {
            Window w = limit.getKey();
            long amount = amount(w, tokens);
            long cap = (long) Math.floor(share * limit.getValue());
            if (amount > cap) {
                return Optional.empty();
            }
            Optional<Instant> at = w.calendar()
                    ? Optional.of(used(w, now) + amount <= cap ? now : calendar.get(w).resetsAt(now).toInstant())
                    : minute.get(w).whenAtMost(now, cap - amount);
            if (at.isEmpty()) {
                return Optional.empty();
            }
            if (at.get().isAfter(latest)) {
                latest = at.get();
            }
        }
        return Optional.of(latest);
    }

    /**
     * How many more requests this key can take from now until {@code deadline} by its request windows (rpm, rpd),
     * counting the room that frees up meanwhile (a minute window's limit again in each minute of a longer wait);
     * {@link Long#MAX_VALUE} when it has no request limit.
     */
    public synchronized long requestRoomBy(Instant deadline) {
        Instant now = clock.instant();
        long room = Long.MAX_VALUE;
        for (Map.Entry<Window, Long> limit : limits.entrySet()) {
            Window w = limit.getKey();
            if (!w.counts(Kind.REQUESTS)) {
                continue;
            }
            long stillCounted = w.calendar()
                    ? (calendar.get(w).resetsAt(now).toInstant().isAfter(deadline) ? calendar.get(w).sum(now) : 0)
                    : minute.get(w).sumAt(now, deadline);
            long windowRoom = limit.getValue() - stillCounted;
            if (!w.calendar()) {
                // over a longer wait a minute window serves its limit in every minute the wait spans, less what it
                // counts now
                long minutes = (Duration.between(now, deadline).toMillis() + 59_999) / 60_000;
                windowRoom = Math.max(windowRoom, minutes * limit.getValue() - minute.get(w).sum(now));
            }
            room = Math.min(room, Math.max(0, windowRoom));
        }
        return room;
    }

    /**
     * When {@code window}'s use now is all behind it: the end of the sliding minute of its last call, or the end of
     * the calendar period; now when nothing is counted. What OpenAI's {@code x-ratelimit-reset-*} headers tell.
     */
    public synchronized Instant freeAt(Window window) {
        Instant now = clock.instant();
        if (!limits.containsKey(window) || used(window, now) == 0) {
            return now;
        }
        return window.calendar() ? calendar.get(window).resetsAt(now).toInstant()
                // empty while the current bucket still holds calls: they leave a minute from now at the latest
                : minute.get(window).whenAtMost(now, 0).orElse(now.plus(Duration.ofMinutes(1)));
    }

    /** The use of {@code window} now, 0 when it is not limited. */
    public synchronized long used(Window window) {
        return limits.containsKey(window) ? used(window, clock.instant()) : 0;
    }

    /** The limit of {@code window}, null when there is none. */
    public Long limit(Window window) {
        return limits.get(window);
    }

    /** Every limited window's use now. */
    public synchronized List<Use> use() {
        Instant now = clock.instant();
        List<Use> use = new ArrayList<>();
        limits.forEach((w, limit) -> use.add(new Use(w, used(w, now), limit,
                w.calendar() ? calendar.get(w).resetsAt(now).toOffsetDateTime().toString() : null)));
        return use;
    }

    /** The day and month counts with their period, to be saved; see {@link #restore}. */
    public synchronized Map<Window, PeriodCount> periodCounts() {
        Instant now = clock.instant();
        Map<Window, PeriodCount> counts = new EnumMap<>(Window.class);
        calendar.forEach((w, counter) -> counts.put(w, new PeriodCount(counter.periodStart(now), counter.sum(now))));
        return counts;
    }

    /** A saved day or month count; one of a period that has ended is ignored. */
    public synchronized void restore(Window window, PeriodCount saved) {
        PeriodCounter counter = calendar.get(window);
        if (counter != null) {
            counter.restore(clock.instant(), saved.periodStart(), saved.amount());
        }
    }

    /** A day or month count and the first day of its period. */
    public record PeriodCount(LocalDate periodStart, long amount) {
    }

    private double highestRatio() {
        Instant now = clock.instant();
        double highest = 0;
        for (Map.Entry<Window, Long> limit : limits.entrySet()) {
            highest = Math.max(highest, (double) used(limit.getKey(), now) / limit.getValue());
        }
        return highest;
    }

    private long used(Window w, Instant now) {
        return w.calendar() ? calendar.get(w).sum(now) : minute.get(w).sum(now);
    }

    private void add(Window w, Instant at, Instant now, long amount) {
        if (w.calendar()) {
            calendar.get(w).add(now, amount);
        } else {
            minute.get(w).add(at, now, amount);
        }
    }

    private static long amount(Window w, long tokens) {
        return w.counts(Kind.REQUESTS) ? 1 : tokens;
    }

    /** design §6: one WARN per key, day or month window and period, when it passes 80 %. */
    private void alertIfDue(Instant now) {
        for (Map.Entry<Window, PeriodCounter> entry : calendar.entrySet()) {
            Window w = entry.getKey();
            PeriodCounter counter = entry.getValue();
            long used = counter.sum(now);
            long limit = limits.get(w);
            LocalDate period = counter.periodStart(now);
            if (used >= ALERT * limit && !period.equals(alerted.get(w))) {
                alerted.put(w, period);
                ZonedDateTime resets = counter.resetsAt(now);
                LOG.warn("{} at {}% of {} ({}/{}), resets {}", name, Math.round(100.0 * used / limit), w.configName(),
                        used, limit, resets.toOffsetDateTime());
            }
        }
    }
}
