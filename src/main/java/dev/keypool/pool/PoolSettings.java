package dev.keypool.pool;

import java.time.Clock;
import java.time.Duration;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.Objects;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.DoubleSupplier;

import dev.keypool.events.StateListener;
import dev.keypool.quota.QuotaLedger;

/**
 * How one channel's {@link KeyPool} behaves: made once by its {@link Builder}, checked there, and read by the parts
 * of the pool. A reload changes {@code strategy}, {@code cooling}, {@code disableAfter} and {@code recovery}
 * ({@link KeyPool#reload});
 * the rest stays until restart.
 *
 * @param channel                  the channel's name, in every log line and event of its keys
 * @param strategy                 how a key is chosen among the usable ones
 * @param cooling                  how long a key cools after a 429 without Retry-After
 * @param disableAfter             failures in a row (5xx, timeouts, connection errors) that disable a key, at least 1
 * @param quotaZone                where the days and months of the keys' quotas begin
 * @param clock                    the pool's time; a key's sliding window runs on the clock of the first pool it joins
 * @param listener                 hears every state change of the pool's keys
 * @param warmup                   how long a key coming back into service ramps up to its weight (zero: at once)
 * @param degradedErrorRatePercent a key failing more than this share of its calls of the last 60 s is degraded
 * @param ledgers                  the count each key's quota shares with other gateway instances (design §11)
 * @param jitter                   numbers in [0, 1) that spread the cooling times; a test passes a seeded one
 * @param recovery                 how DISABLED keys heal by themselves ({@link Recovery#OFF} with a probe block)
 * @param degradedMinimumCalls     the calls a key's last 60 s must hold before its error rate lowers its weight (the
 *                                 breaker's minimumCalls): one failed call of one is no rate
 */
public record PoolSettings(String channel, SelectionStrategy strategy, Cooling cooling, int disableAfter,
                           ZoneId quotaZone, Clock clock, StateListener listener, Duration warmup,
                           double degradedErrorRatePercent, QuotaLedger.Factory ledgers, DoubleSupplier jitter,
                           Recovery recovery, int degradedMinimumCalls) {

    public PoolSettings {
        if (channel == null || channel.isBlank()) {
            throw new IllegalArgumentException("channel must not be blank");
        }
        Objects.requireNonNull(strategy, "strategy");
        Objects.requireNonNull(cooling, "cooling");
        Objects.requireNonNull(quotaZone, "quotaZone");
        Objects.requireNonNull(clock, "clock");
        Objects.requireNonNull(listener, "listener");
        Objects.requireNonNull(warmup, "warmup");
        Objects.requireNonNull(ledgers, "ledgers");
        Objects.requireNonNull(jitter, "jitter");
        Objects.requireNonNull(recovery, "recovery");
        checkReloadable(channel, disableAfter);
    }

    /** Settings for {@code channel}; what is not set is as {@link Builder} says. */
    public static Builder builder(String channel) {
        return new Builder(channel);
    }

    /** The settings a reloaded keypool.yaml may change, checked as at startup. */
    PoolSettings reloaded(SelectionStrategy newStrategy, Cooling newCooling, int newDisableAfter, Recovery newRecovery) {
        return new PoolSettings(channel, newStrategy, newCooling, newDisableAfter, quotaZone, clock, listener, warmup,
                degradedErrorRatePercent, ledgers, jitter, newRecovery, degradedMinimumCalls);
    }

    private static void checkReloadable(String channel, int disableAfter) {
        if (disableAfter < 1) {
            throw new IllegalArgumentException("disableAfter of channel " + channel + " must be at least 1, was " + disableAfter);
        }
    }

    /**
     * Collects the settings; {@link #build} checks them all. The channel's configuration gives every value in the
     * gateway (ChannelConfig, whose defaults are keypool.yaml's); what a test leaves unset is neutral: round robin, no
     * cooldown, disabled on the first failure, UTC, the system clock, nobody listening, no warm-up, never degraded by
     * errors (100 %), quotas counted here only, no recovery.
     */
    public static final class Builder {

        private final String channel;
        private SelectionStrategy strategy = new RoundRobinStrategy();
        private Cooling cooling = Cooling.fixed(Duration.ZERO);
        private int disableAfter = 1;
        private ZoneId quotaZone = ZoneOffset.UTC;
        private Clock clock = Clock.systemUTC();
        private StateListener listener = StateListener.NONE;
        private Duration warmup = Duration.ZERO;
        private double degradedErrorRatePercent = 100;
        private QuotaLedger.Factory ledgers = QuotaLedger.Factory.LOCAL;
        private DoubleSupplier jitter = () -> ThreadLocalRandom.current().nextDouble();
        private Recovery recovery = Recovery.OFF;
        private int degradedMinimumCalls = 1;

        private Builder(String channel) {
            this.channel = channel;
        }

        public Builder strategy(SelectionStrategy strategy) {
            this.strategy = strategy;
            return this;
        }

        /** Exactly this long after every 429 without Retry-After. */
        public Builder cooldown(Duration cooldown) {
            this.cooling = Cooling.fixed(cooldown);
            return this;
        }

        public Builder cooling(Cooling cooling) {
            this.cooling = cooling;
            return this;
        }

        public Builder jitter(DoubleSupplier jitter) {
            this.jitter = jitter;
            return this;
        }

        public Builder recovery(Recovery recovery) {
            this.recovery = recovery;
            return this;
        }

        public Builder degradedMinimumCalls(int degradedMinimumCalls) {
            this.degradedMinimumCalls = degradedMinimumCalls;
            return this;
        }

        public Builder disableAfter(int disableAfter) {
            this.disableAfter = disableAfter;
            return this;
        }

        public Builder quotaZone(ZoneId quotaZone) {
            this.quotaZone = quotaZone;
            return this;
        }

        public Builder clock(Clock clock) {
            this.clock = clock;
            return this;
        }

        public Builder listener(StateListener listener) {
            this.listener = listener;
            return this;
        }

        public Builder warmup(Duration warmup) {
            this.warmup = warmup;
            return this;
        }

        public Builder degradedErrorRatePercent(double degradedErrorRatePercent) {
            this.degradedErrorRatePercent = degradedErrorRatePercent;
            return this;
        }

        public Builder ledgers(QuotaLedger.Factory ledgers) {
            this.ledgers = ledgers;
            return this;
        }

        public PoolSettings build() {
            return new PoolSettings(channel, strategy, cooling, disableAfter, quotaZone, clock, listener, warmup,
                    degradedErrorRatePercent, ledgers, jitter, recovery, degradedMinimumCalls);
        }
    }
}
