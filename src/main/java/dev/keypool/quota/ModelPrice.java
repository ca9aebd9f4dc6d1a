package dev.keypool.quota;

/**
 * What a provider charges for one model (design §6 {@code pricing}): USD per million prompt and completion tokens, and
 * for providers that bill prompt-cache tokens apart, per million tokens read from the cache ({@code cacheReadUsdPerMillion})
 * and written to it ({@code cacheWriteUsdPerMillion}); either null when the provider bills them as input.
 */
public record ModelPrice(double inputUsdPerMillion, double outputUsdPerMillion, Double cacheReadUsdPerMillion,
                         Double cacheWriteUsdPerMillion) {

    private static final double MILLION = 1_000_000.0;

    public ModelPrice {
        if (!valid(inputUsdPerMillion) || !valid(outputUsdPerMillion)
                || (cacheReadUsdPerMillion != null && !valid(cacheReadUsdPerMillion))
                || (cacheWriteUsdPerMillion != null && !valid(cacheWriteUsdPerMillion))) {
            throw new IllegalArgumentException("prices must be finite and >= 0");
        }
    }

    /** A price without cache rates: cached tokens cost the input price. */
    public ModelPrice(double inputUsdPerMillion, double outputUsdPerMillion) {
        this(inputUsdPerMillion, outputUsdPerMillion, null, null);
    }

    public double costUsd(long promptTokens, long completionTokens) {
        return costUsd(promptTokens, completionTokens, 0, 0);
    }

    /**
     * @param promptTokens     every prompt token, the cached ones included
     * @param cachedTokens     of those, read from the prompt cache
     * @param cacheWriteTokens of those, written to the prompt cache
     */
    public double costUsd(long promptTokens, long completionTokens, long cachedTokens, long cacheWriteTokens) {
        long read = Math.max(0, Math.min(cachedTokens, promptTokens));
        long written = Math.max(0, Math.min(cacheWriteTokens, promptTokens - read));
        long uncached = promptTokens - read - written;
        double readPrice = cacheReadUsdPerMillion == null ? inputUsdPerMillion : cacheReadUsdPerMillion;
        double writePrice = cacheWriteUsdPerMillion == null ? inputUsdPerMillion : cacheWriteUsdPerMillion;
        return (uncached * inputUsdPerMillion + read * readPrice + written * writePrice
                + completionTokens * outputUsdPerMillion) / MILLION;
    }

    private static boolean valid(double usd) {
        return usd >= 0 && !Double.isInfinite(usd);
    }
}
