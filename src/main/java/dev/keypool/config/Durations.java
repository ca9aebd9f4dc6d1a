package dev.keypool.config;

import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** The duration notation of {@code keypool.yaml}: {@code 500ms}, {@code 60s}, {@code 5m}, {@code 1h}, {@code 30d}, or a bare number of seconds. */
public final class Durations {

    private static final Pattern DURATION = Pattern.compile("(\\d+)(ms|s|m|h|d)?");

    private Durations() {
    }

    /** @throws IllegalArgumentException naming the text, with examples of what would have been accepted */
    public static Duration parse(String text) {
        Matcher m = text == null ? null : DURATION.matcher(text.trim());
        if (m == null || !m.matches()) {
            throw invalid(text);
        }
        try {
            long amount = Long.parseLong(m.group(1));
            String unit = m.group(2) == null ? "s" : m.group(2);
            return switch (unit) {
                case "ms" -> Duration.ofMillis(amount);
                case "m" -> Duration.ofMinutes(amount);
                case "h" -> Duration.ofHours(amount);
                case "d" -> Duration.ofDays(amount);
                default -> Duration.ofSeconds(amount);
            };
        } catch (ArithmeticException | NumberFormatException tooLarge) {
            throw invalid(text);
        }
    }

    /**
     * The shortest form {@link #parse} reads back, except that up to 60 of a unit stay in that unit:
     * design.md writes {@code 60s} and {@code 60m}, and log lines read better that way than {@code 1m}.
     */
    public static String format(Duration d) {
        long millis = d.toMillis();
        if (millis % 1000 != 0) {
            return millis + "ms";
        }
        long seconds = millis / 1000;
        if (Math.abs(seconds) <= 60 || seconds % 60 != 0) {
            return seconds + "s";
        }
        long minutes = seconds / 60;
        if (Math.abs(minutes) <= 60 || minutes % 60 != 0) {
            return minutes + "m";
        }
        return minutes / 60 + "h";
    }

    private static IllegalArgumentException invalid(String text) {
        return new IllegalArgumentException("invalid duration " + Problems.quote(text) + " (use e.g. 500ms, 30s, 5m)");
    }
}
