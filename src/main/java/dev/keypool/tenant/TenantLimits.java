package dev.keypool.tenant;

import java.time.Duration;
import java.util.OptionalLong;
import java.util.function.LongSupplier;

import dev.keypool.quota.KeyQuota;

/**
 * One tenant's own limits (design §7): requests per minute as a bucket with a burst, tokens per minute (estimated
 * before the call, reconciled after), requests per day and a USD budget per day and month. Checked before any key
 * is chosen, so that a refused request reserves nothing on a key. The local implementation keeps them in memory;
 * one that shares them between gateway instances implements this same interface.
 */
public interface TenantLimits {

    /** Takes one request and its estimated tokens from every limit, all or nothing. */
    Decision admit(LongSupplier estimatedTokens);

    /**
     * The request's admission: decided now ({@link #admit}), or, by limits shared with other instances, left to be
     * decided with the request's first key reservation in the same call (design §11), or alone when no key's
     * reservation can carry it.
     */
    default TenantAdmission admission(LongSupplier estimatedTokens) {
        return TenantAdmission.decided(admit(estimatedTokens));
    }

    /**
     * An admitted request is over: its tokens become {@code usedTokens} when the provider reported them; when not, an
     * answered request keeps its estimate and one that was never answered gives it back. Its cost is spent from the
     * budget.
     */
    void settle(Admitted admitted, OptionalLong usedTokens, boolean answered, double costUsd);

    /**
     * These limits replace {@code previous}, the same tenant's before a reload changed them: the counts of the day and
     * month (requests, budget spent) go on; the rpm bucket and the minute's tokens start afresh.
     */
    default void continueFrom(TenantLimits previous) {
    }

    /**
     * What the tenant spent this UTC day and month before these limits existed (read back from the request log at
     * start), so that a restart does not give it its budget again. Limits without a budget of their own ignore it.
     */
    default void restoreSpent(double todayUsd, double thisMonthUsd) {
    }

    /** The limits now, without taking anything. */
    RateLimits rateLimits();

    /** USD spent today and this month (UTC). */
    double spentToday();

    double spentThisMonth();

    /** What {@link #admit} decided. */
    sealed interface Decision permits Admitted, Refused {
        RateLimits rateLimits();
    }

    /** The request may go on; {@code reservation} (null when the tenant counts no tokens or days) is settled later. */
    record Admitted(RateLimits rateLimits, KeyQuota.Reservation reservation) implements Decision {
    }

    /** The request is refused: {@code tenant_rate_limited} or {@code budget_exceeded}, until {@code retryAfter}. */
    record Refused(Refusal refusal, String message, Duration retryAfter, RateLimits rateLimits) implements Decision {
    }

    /** Why a tenant's request is refused, with the OpenAI-style error code. */
    enum Refusal {
        RATE_LIMITED("tenant_rate_limited"), BUDGET_EXCEEDED("budget_exceeded");

        private final String code;

        Refusal(String code) {
            this.code = code;
        }

        public String code() {
            return code;
        }
    }
}
