package dev.keypool.config;

import java.time.Duration;

import dev.keypool.pool.Fingerprint;
import dev.keypool.pool.KeyRamp;
import dev.keypool.quota.QuotaLimits;

/**
 * One upstream API key, its optional per-key limits (null = no limit), {@code rollout} (null = none) and
 * {@code retiring} of design §8, and the tenant whose own key it is (null = a shared key, design §7). The raw key must
 * never reach a log or message, hence the {@link #toString()} without it.
 */
public record KeyConfig(String key, String label, int weight, Integer rpm, Long tpm, Integer rpd, Long tpd,
                        Long tpmMonth, Duration rollout, boolean retiring, String tenant) {

    /** A shared key, neither rolling out nor retiring. */
    public KeyConfig(String key, String label, int weight, Integer rpm, Long tpm, Integer rpd, Long tpd, Long tpmMonth) {
        this(key, label, weight, rpm, tpm, rpd, tpd, tpmMonth, null, false, null);
    }

    /** The key's name in logs, the admin API and the state files ({@link Fingerprint}): never the key itself. */
    public String fingerprint() {
        return Fingerprint.of(key);
    }

    /** How the key enters or leaves service, as its ramp takes it. */
    public KeyRamp.Plan rampPlan() {
        return new KeyRamp.Plan(rollout, retiring);
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
