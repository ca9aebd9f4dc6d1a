package dev.keypool.config;

/**
 * One upstream API key and its optional per-key limits (null = no limit).
 * The raw key must never reach a log or message, hence the {@link #toString()} without it.
 */
public record KeyConfig(String key, String label, int weight, Integer rpm, Long tpm, Integer rpd, Long tpmMonth) {

    @Override
    public String toString() {
        return "KeyConfig[label=" + label + ", weight=" + weight + "]";
    }
}
