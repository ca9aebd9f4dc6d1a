package dev.keypool.routing;

import java.util.Arrays;
import java.util.Locale;
import java.util.Optional;
import java.util.stream.Collectors;

/** How a model group picks the first target among the usable ones of its best tier (design §16). */
public enum Balance {
    /** At random, in proportion to each target's weight. */
    WEIGHTED,
    /** As weighted, the weight scaled by the share of quota the target's keys have left. */
    REMAINING_QUOTA,
    /** As weighted, the weight divided by the target's measured latency: slow targets get less, never none. */
    LATENCY,
    /** Always the first usable target in file order. */
    PRIORITY;

    public String configName() {
        return name().toLowerCase(Locale.ROOT).replace('_', '-');
    }

    public static Optional<Balance> named(String name) {
        return Arrays.stream(values()).filter(b -> b.configName().equals(name)).findFirst();
    }

    public static String names() {
        return Arrays.stream(values()).map(Balance::configName).collect(Collectors.joining(", "));
    }
}
