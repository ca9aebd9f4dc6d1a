package dev.keypool.alert;

/** What an alert is about, with the rule's name in keypool.yaml ({@code alerts.rules}). */
public enum AlertRule {
    /** A key's day or month quota window passed its share ({@code percent}, 80 by default). */
    QUOTA("quota"),
    /** A tenant's daily or monthly budget passed its share ({@code percent}, 80 by default). */
    TENANT_BUDGET("tenantBudget"),
    /** A tenant's daily or monthly budget is spent: its requests are refused until it resets. */
    TENANT_BUDGET_SPENT("tenantBudgetSpent"),
    /** A key was disabled: rejected by its provider, failing too often in a row, or by an operator. */
    KEY_DISABLED("keyDisabled"),
    /** A channel's breaker opened: its requests go to their fallback channels. */
    BREAKER_OPENED("breakerOpened"),
    /** No key of a channel can be used (each cooling or disabled). */
    CHANNEL_UNUSABLE("channelUnusable"),
    /** More than {@code errors} failed provider calls on a channel within {@code minutes}. */
    CHANNEL_ERRORS("channelErrors"),
    /** The request log lost rows: its queue was full or its database refused them. */
    REQUEST_LOG_DROPPED("requestLogDropped"),
    /** This instance has gone on alone, without the Redis it shares state through, for a whole check or longer. */
    REDIS_ALONE("redisAlone");

    private final String configName;

    AlertRule(String configName) {
        this.configName = configName;
    }

    public String configName() {
        return configName;
    }
}
