package dev.keypool.config;

import dev.keypool.quota.QuotaLimits;

/**
 * One upstream API key, its optional per-key limits (null = no limit) and the tenant whose own key it is (null =
 * a shared key, SPEC §7). The raw key must never reach a log or message, hence the {@link #toString()} without it.
 */
public record KeyConfig(String key, String label, int weight, Integer rpm, Long tpm, Integer rpd, Long tpd,
                        Long tpmMonth, String tenant) {

    /** A shared key. */
    public KeyConfig(String key, String label, int weight, Integer rpm, Long tpm, Integer rpd, Long tpd, Long tpmMonth) {
        this(key, label, weight, rpm, tpm, rpd, tpd, tpmMonth, null);
    }

    /** The limits as the key's quota takes them. */
    public QuotaLimits limits() {
        return new QuotaLimits(rpm == null ? null : rpm.longValue(), tpm, rpd == null ? null : rpd.longValue(), tpd,
                tpmMonth);
    }

    @Override
    public String toString() {
        return "KeyConfig[label=" + label + ", weight=" + weight + ", tenant=" + tenant + "]";
    }
}
