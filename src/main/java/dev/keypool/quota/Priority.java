package dev.keypool.quota;

import java.util.Arrays;
import java.util.Locale;
import java.util.Optional;

/** A tenant's place in the line of requests waiting for quota room (design §7): high before normal before low. */
public enum Priority {
    HIGH, NORMAL, LOW;

    /** The keypool.yaml name: {@code high}, {@code normal}, {@code low}. */
    public String configName() {
        return name().toLowerCase(Locale.ROOT);
    }

    public static Optional<Priority> named(String name) {
        return Arrays.stream(values()).filter(p -> p.configName().equals(name)).findFirst();
    }
}
