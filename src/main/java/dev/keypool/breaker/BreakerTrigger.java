package dev.keypool.breaker;

import java.util.Arrays;
import java.util.Locale;
import java.util.stream.Collectors;

/** The conditions that can open a channel's breaker; a channel enables any subset and they are OR-ed. */
public enum BreakerTrigger {
    POOL_EXHAUSTED,
    ERROR_RATE,
    LATENCY,
    CONSECUTIVE_FAIL;

    /** The spelling used in keypool.yaml and in log lines, e.g. {@code error_rate}. */
    public String configName() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** Parses the keypool.yaml spelling; the message lists the valid names so a config error is self-explaining. */
    public static BreakerTrigger fromConfigName(String name) {
        if (name != null) {
            String wanted = name.trim();
            for (BreakerTrigger trigger : values()) {
                if (trigger.configName().equalsIgnoreCase(wanted)) {
                    return trigger;
                }
            }
        }
        throw new IllegalArgumentException("unknown breaker trigger '" + name + "', expected one of "
                + Arrays.stream(values()).map(BreakerTrigger::configName).collect(Collectors.joining(", ")));
    }
}
