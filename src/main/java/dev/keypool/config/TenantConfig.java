package dev.keypool.config;

import java.util.List;

import dev.keypool.quota.Priority;

/**
 * A client of the gateway (design §7): its bearer token, its limits (null = none: {@code rpm} refilling a bucket of
 * {@code burst}, tokens per minute, requests per UTC day, USD per UTC day and month), its place in the waiting
 * line, the channels and models it may use (empty = all; models take {@code *} wildcards) and whether it may
 * borrow the shared keys when its own cannot serve; {@code maxInFlight}: its requests in flight at once (null = the
 * gateway's {@code keypool.tenant-max-in-flight}).
 */
public record TenantConfig(String name, String token, Integer rpm, Integer burst, Long tpm, Integer rpd,
                           Priority priority, List<String> channels, List<String> models, Double budgetDaily,
                           Double budgetMonthly, boolean borrow, Integer maxInFlight) {

    public TenantConfig {
        channels = Copies.list(channels);
        models = Copies.list(models);
    }

    /** Without a limit of its own on requests in flight. */
    public TenantConfig(String name, String token, Integer rpm, Integer burst, Long tpm, Integer rpd,
                        Priority priority, List<String> channels, List<String> models, Double budgetDaily,
                        Double budgetMonthly, boolean borrow) {
        this(name, token, rpm, burst, tpm, rpd, priority, channels, models, budgetDaily, budgetMonthly, borrow, null);
    }

    /** A tenant with only a request limit, the defaults for the rest. */
    public TenantConfig(String name, String token, Integer rpm, List<String> channels) {
        this(name, token, rpm, null, null, null, Priority.NORMAL, channels, List.of(), null, null, true);
    }

    /** The bucket's size: {@code burst}, else a sixth of {@code rpm} (ten seconds of it), at least 1; null without {@code rpm}. */
    public Integer bucketSize() {
        return rpm == null ? null : burst != null ? burst : Math.max(1, rpm / 6);
    }

    /** Without the token: it is a credential. */
    @Override
    public String toString() {
        return "TenantConfig[name=" + name + ", rpm=" + rpm + ", burst=" + burst + ", tpm=" + tpm + ", rpd=" + rpd
                + ", priority=" + priority + ", channels=" + channels + ", models=" + models + ", budgetDaily="
                + budgetDaily + ", budgetMonthly=" + budgetMonthly + ", borrow=" + borrow + ", maxInFlight=" + maxInFlight + "]";
    }
}
