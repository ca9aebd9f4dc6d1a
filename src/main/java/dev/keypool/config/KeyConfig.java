package dev.keypool.config;

import dev.keypool.quota.QuotaLimits;

/**
 * One upstream API key and its optional per-key limits (null = no limit).
 * The raw key must never reach a log or message, hence the {@link #toString()} without it.
 */
public record KeyConfig(String key, String label, int weight, Integer rpm, Long tpm, Integer rpd, Long tpd,
                        Long tpmMonth) {

    /** The limits as the key's quota takes them. */
    public QuotaLimits limits() {
        return new QuotaLimits(rpm == null ? null : rpm.longValue(), tpm, rpd == null ? null : rpd.longValue(), tpd,
                tpmMonth);
    }

    @Override
    public String toString() {
        return "KeyConfig[label=" + label + ", weight=" + weight + "]";
    }
}
