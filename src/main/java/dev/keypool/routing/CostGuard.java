package dev.keypool.routing;

import java.util.List;

/**
 * A model group's cost guard (design §16): the walk goes on to a step whose model costs more than
 * {@code maxPriceRatio} times the first step's only within the ratio the group sets; a costlier step is skipped. A
 * model's price is its input plus output price per million tokens. A step whose model has no price is never skipped,
 * and without a price for the first step there is nothing to compare with: the ledger counts an unpriced model as
 * free, and a guard that skipped what it cannot price would strand a group of unpriced local models.
 */
public final class CostGuard {

    /** Prices are decimals from the file: 0.3 is not exactly three times 0.1 in floating point. */
    private static final double ROUNDING = 1e-9;

    private CostGuard() {
    }

    /**
     * @param maxPriceRatio the group's ratio, or null when it sets none
     * @param prices        per step of the walk, in walk order, USD per million input plus output tokens; null for a
     *                      model without a price
     * @return for each step, whether the walk may go to it
     */
    public static boolean[] affordable(Double maxPriceRatio, List<Double> prices) {
        boolean[] allowed = new boolean[prices.size()];
        Double first = prices.isEmpty() ? null : prices.get(0);
        for (int i = 0; i < allowed.length; i++) {
            Double price = prices.get(i);
            allowed[i] = maxPriceRatio == null || first == null || price == null || price <= maxPriceRatio * first * (1 + ROUNDING);
        }
        return allowed;
    }
}
