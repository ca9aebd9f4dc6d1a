package dev.keypool.tenant;

import java.util.concurrent.atomic.DoubleAdder;
import java.util.concurrent.atomic.LongAdder;

/**
 * What one tenant's answered requests used, split by where their key came from (design §7): its own keys, or the
 * shared keys it borrowed. Lock-free.
 */
public final class TenantUsage {

    /** One side of the split, for status. */
    public record Totals(long requests, long promptTokens, long completionTokens, double costUsd) {
    }

    private final Side own = new Side();
    private final Side borrowed = new Side();

    /** An answered request: its usage, on an own key ({@code own}) or a borrowed shared one. */
    public void record(boolean onOwnKey, long promptTokens, long completionTokens, double costUsd) {
        (onOwnKey ? own : borrowed).add(promptTokens, completionTokens, costUsd);
    }

    /** Adds what {@code previous} counted, for the tenant that replaces its own after a reload. */
    void continueFrom(TenantUsage previous) {
        own.add(previous.own);
        borrowed.add(previous.borrowed);
    }

    public Totals own() {
        return own.totals();
    }

    public Totals borrowed() {
        return borrowed.totals();
    }

    private static final class Side {
        private final LongAdder requests = new LongAdder();
        private final LongAdder prompt = new LongAdder();
        private final LongAdder completion = new LongAdder();
        private final DoubleAdder cost = new DoubleAdder();

        void add(long promptTokens, long completionTokens, double costUsd) {
            requests.increment();
            prompt.add(Math.max(0, promptTokens));
            completion.add(Math.max(0, completionTokens));
            cost.add(costUsd);
        }

        void add(Side other) {
            requests.add(other.requests.sum());
            prompt.add(other.prompt.sum());
            completion.add(other.completion.sum());
            cost.add(other.cost.sum());
        }

        Totals totals() {
            return new Totals(requests.sum(), prompt.sum(), completion.sum(), cost.sum());
        }
    }
}
