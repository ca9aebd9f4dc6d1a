package dev.keypool.routing;

import java.util.Arrays;
import java.util.Locale;
import java.util.Optional;
import java.util.stream.Collectors;

/** Whom a model group keeps on the same target while that target is usable. */
public enum Sticky {
    /** Nobody: every request is chosen afresh. */
    NONE,
    /** Each tenant. */
    TENANT,
    /** Each end user, as OpenAI's {@code user} field names them. */
    USER;

    public String configName() {
        return name().toLowerCase(Locale.ROOT);
    }

    public static Optional<Sticky> named(String name) {
        return Arrays.stream(values()).filter(s -> s.configName().equals(name)).findFirst();
    }

    public static String names() {
        return Arrays.stream(values()).map(Sticky::configName).collect(Collectors.joining(", "));
    }
}
