package dev.keypool.config;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * The problems found in one file, collected instead of thrown so that all of them are reported together.
 * Some messages quote the offending value; any quoted value that is a key or token found elsewhere in the
 * file (a key pasted into {@code timeout}, say) is masked, because raw credentials must never be printed.
 */
final class Problems {

    private final List<String> lines = new ArrayList<>();
    private final Set<String> secrets = new HashSet<>();

    void add(String path, String message) {
        lines.add(path + ": " + message);
    }

    void addSecret(String secret) {
        secrets.add(secret);
    }

    boolean isEmpty() {
        return lines.isEmpty();
    }

    List<String> lines() {
        return lines.stream().map(this::redact).toList();
    }

    /** Wraps a value for a message; the quotes are what {@link #lines()} looks for when masking secrets. */
    static String quote(String value) {
        return "'" + value + "'";
    }

    private String redact(String line) {
        String redacted = line;
        for (String secret : secrets) {
            redacted = redacted.replace(quote(secret), "'***'");
        }
        return redacted;
    }
}
