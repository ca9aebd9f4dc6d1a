package dev.keypool.quota;

import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.DoubleAdder;
import java.util.concurrent.atomic.LongAdder;

/**
 * The tokens and cost of one channel's answered calls (design §6 "Cost"), per key and per upstream model: usage ×
 * the channel's {@code pricing}. A model without a price counts its tokens and no cost. Thread-safe and lock-free:
 * every successful call records here.
 */
public final class CostLedger {

    /** One model's totals, for status. */
    public record ModelUsage(String model, long promptTokens, long completionTokens, double costUsd) {
    }

    /**
     * Distinct model names kept apart; beyond, calls count under {@link #OTHER_MODELS}. A channel serving {@code *}
     * answers whatever model names its clients send, and a ledger must not grow with them.
     */
    static final int MAX_MODELS = 256;
    static final String OTHER_MODELS = "(other)";
    private static final String UNKNOWN_MODEL = "(unknown)";

    // replaced by a reload; the totals stay
    private volatile Map<String, ModelPrice> pricing;
    private final Map<String, Tally> byModel = new ConcurrentHashMap<>();
    private final Map<String, DoubleAdder> byKey = new ConcurrentHashMap<>();
    private final DoubleAdder total = new DoubleAdder();

    /** @param pricing by upstream model name */
    public CostLedger(Map<String, ModelPrice> pricing) {
        this.pricing = Map.copyOf(pricing);
    }

    /** New prices for the calls from now on (a reload); what was counted stays at the prices of its time. */
    public void reprice(Map<String, ModelPrice> newPricing) {
        this.pricing = Map.copyOf(newPricing);
    }

    /**
     * A call answered with this usage, on the key with this fingerprint, for this upstream model.
     *
     * @return what the call cost, in USD (0 without a price)
     */
    public double record(String keyFingerprint, String upstreamModel, long promptTokens, long completionTokens) {
        return record(keyFingerprint, upstreamModel, promptTokens, completionTokens, 0, 0);
    }

    /**
     * As {@link #record(String, String, long, long)}, with the prompt tokens read from ({@code cachedTokens}) and
     * written to ({@code cacheWriteTokens}) the provider's prompt cache, priced by the model's cache rates.
     */
    public double record(String keyFingerprint, String upstreamModel, long promptTokens, long completionTokens,
                         long cachedTokens, long cacheWriteTokens) {
        String model = modelName(upstreamModel);
        ModelPrice price = pricing.get(model);
        double cost = price == null ? 0 : price.costUsd(Math.max(0, promptTokens), Math.max(0, completionTokens),
                cachedTokens, cacheWriteTokens);
        add(keyFingerprint, model, promptTokens, completionTokens, cost);
        return cost;
    }

    /**
     * Adds totals counted before this ledger existed (the request log read back at start), as they were priced then.
     */
    public void restore(String keyFingerprint, String upstreamModel, long promptTokens, long completionTokens,
                        double costUsd) {
        add(keyFingerprint, modelName(upstreamModel), promptTokens, completionTokens, costUsd);
    }

    private void add(String keyFingerprint, String model, long promptTokens, long completionTokens, double cost) {
        tally(model).add(promptTokens, completionTokens, cost);
        if (keyFingerprint != null) {
            byKey.computeIfAbsent(keyFingerprint, k -> new DoubleAdder()).add(cost);
        }
        total.add(cost);
    }

    private static String modelName(String upstreamModel) {
        return upstreamModel == null || upstreamModel.isBlank() ? UNKNOWN_MODEL : upstreamModel;
    }

    /** Everything this channel's calls cost, in USD. */
    public double costUsd() {
        return total.sum();
    }

    /** What the calls on one key cost, in USD; 0 for a key with none. */
    public double costUsd(String keyFingerprint) {
        DoubleAdder cost = byKey.get(keyFingerprint);
        return cost == null ? 0 : cost.sum();
    }

    /** Each model's totals, by model name. */
    public List<ModelUsage> byModel() {
        return byModel.entrySet().stream()
                .map(e -> e.getValue().snapshot(e.getKey()))
                .sorted(Comparator.comparing(ModelUsage::model))
                .toList();
    }

    private Tally tally(String model) {
        Tally tally = byModel.get(model);
        if (tally != null) {
            return tally;
        }
        // a slightly racy bound (a few over it under contention) is fine: it only stops unbounded growth
        return byModel.computeIfAbsent(byModel.size() < MAX_MODELS ? model : OTHER_MODELS, m -> new Tally());
    }

    private static final class Tally {
        private final LongAdder prompt = new LongAdder();
        private final LongAdder completion = new LongAdder();
        private final DoubleAdder cost = new DoubleAdder();

        void add(long promptTokens, long completionTokens, double costUsd) {
            prompt.add(Math.max(0, promptTokens));
            completion.add(Math.max(0, completionTokens));
            cost.add(costUsd);
        }

        ModelUsage snapshot(String model) {
            return new ModelUsage(model, prompt.sum(), completion.sum(), cost.sum());
        }
    }
}
