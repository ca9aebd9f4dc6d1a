package dev.keypool.config;

import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Set;

/**
 * The alerts ({@code alerts:}): which rules are on, their thresholds, how often one rule may speak of one subject
 * ({@code period}), and the Camel endpoint URIs each alert is sent to ({@code sinks}). Every rule is on unless the
 * file turns it off; with no sink, alerts are still events of {@code /admin/events} and WARN lines.
 *
 * @param sinks              Camel endpoint URIs, in the file's order; they may carry credentials, so never printed
 * @param off                the names of the rules turned off (names from {@link #RULES})
 * @param quotaPercent       a key's day or month window this full alerts (rule {@code quota})
 * @param budgetPercent      a tenant's daily or monthly budget this spent alerts (rule {@code tenantBudget})
 * @param channelErrors      more errors than this on one channel within {@code channelErrorWindow} alert
 */
public record AlertsConfig(List<String> sinks, Duration period, Set<String> off, int quotaPercent, int budgetPercent,
                           int channelErrors, Duration channelErrorWindow) {

    /** The rules by their keypool.yaml names. */
    public static final List<String> RULES = List.of("quota", "tenantBudget", "tenantBudgetSpent", "keyDisabled",
            "breakerOpened", "channelUnusable", "channelErrors", "requestLogDropped", "redisAlone");

    /** A file without an {@code alerts} block: every rule on with these thresholds, no sink. */
    public static final AlertsConfig DEFAULT = new AlertsConfig(List.of(), Duration.ofMinutes(10), Set.of(), 80, 80,
            20, Duration.ofMinutes(5));

    public AlertsConfig {
        sinks = List.copyOf(sinks);
        off = Set.copyOf(off);
        Objects.requireNonNull(period, "period");
        Objects.requireNonNull(channelErrorWindow, "channelErrorWindow");
    }

    /** Whether the rule of that keypool.yaml name is on. */
    public boolean on(String rule) {
        return !off.contains(rule);
    }

    /** Without the sinks, whose URIs may carry a password or a webhook's secret path. */
    @Override
    public String toString() {
        return "AlertsConfig[sinks=" + sinks.size() + ", period=" + period + ", off=" + off + ", quotaPercent=" + quotaPercent
                + ", budgetPercent=" + budgetPercent + ", channelErrors=" + channelErrors + " in " + channelErrorWindow + "]";
    }
}
