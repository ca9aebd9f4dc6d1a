package dev.keypool.fault;

import java.util.Arrays;
import java.util.Locale;
import java.util.Optional;
import java.util.stream.Collectors;

/** What an injected fault does to an upstream call (design §9). */
public enum FaultKind {
    /** The provider answers {@code status}, without being called. */
    STATUS,
    /** The call waits {@code latencyMs}, then goes out as usual. */
    LATENCY,
    /** The call waits the channel's timeout and fails as the provider's timeout would. */
    TIMEOUT,
    /** The connection is reset, without the provider being called. */
    RESET;

    public String configName() {
        return name().toLowerCase(Locale.ROOT);
    }

    static Optional<FaultKind> named(String name) {
        return Arrays.stream(values()).filter(k -> k.configName().equals(name)).findFirst();
    }

    static String names() {
        return Arrays.stream(values()).map(FaultKind::configName).collect(Collectors.joining(", "));
    }
}
