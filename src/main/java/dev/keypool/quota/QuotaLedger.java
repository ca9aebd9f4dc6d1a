package dev.keypool.quota;

import java.time.Instant;
import java.time.LocalDate;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Where one key's use is counted besides its own {@link KeyQuota}: with several gateway instances, the count they
 * share (design §11), which has the last word on whether a call may go out. A single instance has nothing more to ask
 * ({@link #LOCAL}). Implementations must answer at once, and answer empty rather than fail when they cannot.
 */
public interface QuotaLedger {

    /**
     * One limited window of a key as a call sees it: {@code period} is the first day of a day or month window's
     * period ({@code periodEnd} when it ends), null for a sliding minute window; {@code amount} what the call adds
     * (or, written back, what this instance counts); the call is refused when the window's use plus the amount would
     * pass {@code cap}, or when the use is already at {@code stop} or above (negative: no such bound). A sliding
     * window written back also says what each of its seconds holds ({@code buckets}, by epoch second; else empty).
     */
    record WindowAmount(KeyQuota.Window window, LocalDate period, Instant periodEnd, long amount, double cap, double stop,
                        Map<Long, Long> buckets) {
    }

    /**
     * A window's use in the shared count: {@code buckets} the amounts of a sliding window by epoch second (empty for
     * a day or month window), {@code total} what they add up to. After a call was taken, a sliding window tells only
     * its current second (the mirror learnt the earlier ones with earlier calls, and learns them all with a refusal).
     */
    record Use(long total, Map<Long, Long> buckets) {
    }

    /** Whether the shared count took the call, and the windows' use there afterwards, in the order asked. */
    record Answer(boolean taken, List<Use> use) {
    }

    /** Makes the ledger of each key, by its channel and fingerprint. */
    @FunctionalInterface
    interface Factory {

        /** Every key of a single instance: nothing but the local counts. */
        Factory LOCAL = (channel, fingerprint) -> QuotaLedger.LOCAL;

        QuotaLedger forKey(String channel, String fingerprint);
    }

    /** A single instance: the local decision stands, nothing is counted elsewhere. */
    QuotaLedger LOCAL = new QuotaLedger() {
        @Override
        public Optional<Answer> take(Instant now, List<WindowAmount> windows, CompanionTake companion) {
            return Optional.empty();
        }

        @Override
        public void adjust(Instant reservedAt, Instant now, List<WindowAmount> windows) {
        }

        @Override
        public Optional<Answer> writeBack(Instant now, List<WindowAmount> windows) {
            return Optional.empty();
        }
    };

    /**
     * Takes one call's amounts in every window at once if all of them have room, else nothing. A {@code companion}
     * (null for none) this ledger can carry is decided in the same call: taken with the windows, all or nothing; when
     * it is refused nothing is taken and the answer tells no window's use.
     *
     * @return empty when there is no shared count to ask (alone, or it cannot be reached): the local decision stands
     */
    Optional<Answer> take(Instant now, List<WindowAmount> windows, CompanionTake companion);

    /** Corrects what a call reserved at {@code reservedAt} by each window's amount (negative gives back); not waited for. */
    void adjust(Instant reservedAt, Instant now, List<WindowAmount> windows);

    /**
     * Raises each shared window to at least this instance's use ({@code amount}; a sliding window second by second,
     * {@code buckets}), after the shared count was lost or out of reach: the use of several instances merges by the
     * highest, never counted twice.
     *
     * @return the windows' shared use afterwards; empty when there is no shared count to write to
     */
    Optional<Answer> writeBack(Instant now, List<WindowAmount> windows);
}
