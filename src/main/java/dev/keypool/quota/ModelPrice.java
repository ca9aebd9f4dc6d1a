package dev.keypool.quota;

/** What a provider charges for one model (design §6 {@code pricing}): USD per million prompt and completion tokens. */
public record ModelPrice(double inputUsdPerMillion, double outputUsdPerMillion) {

    private static final double MILLION = 1_000_000.0;

    public ModelPrice {
        if (!(inputUsdPerMillion >= 0) || !(outputUsdPerMillion >= 0)
                || Double.isInfinite(inputUsdPerMillion) || Double.isInfinite(outputUsdPerMillion)) {
            throw new IllegalArgumentException("prices must be finite and >= 0");
        }
    }

    public double costUsd(long promptTokens, long completionTokens) {
        return (promptTokens * inputUsdPerMillion + completionTokens * outputUsdPerMillion) / MILLION;
    }
}
