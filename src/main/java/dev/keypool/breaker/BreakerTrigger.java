package dev.keypool.breaker;

import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

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

    /** The trigger spelled exactly {@code name} in keypool.yaml. */
    public static Optional<BreakerTrigger> ofConfigName(String name) {
        return Arrays.stream(values()).filter(t -> t.configName().equals(name)).findFirst();
    }

    /** Every keypool.yaml spelling, in the order design §3 lists the triggers. */
    public static List<String> configNames() {
        return Arrays.stream(values()).map(BreakerTrigger::configName).toList();
    }
}
