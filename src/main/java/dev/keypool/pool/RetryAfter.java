package dev.keypool.pool;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.Optional;

/** Reads an HTTP Retry-After header (RFC 9110 §10.2.3). */
public final class RetryAfter {

    private RetryAfter() {
    }

    /**
     * Retry-After as delta-seconds ("20") or an HTTP-date (RFC 1123, "Wed, 21 Oct 2026 07:28:00 GMT"), measured
     * from {@code clock}; a date in the past → {@link Duration#ZERO}; null/blank/garbage → empty.
     */
    public static Optional<Duration> parse(String value, Clock clock) {
        if (value == null || value.isBlank()) {
            return Optional.empty();
        }
        String text = value.trim();
        return isDigits(text) ? seconds(text) : untilDate(text, clock);
    }

    private static Optional<Duration> seconds(String digits) {
        try {
            return Optional.of(Duration.ofSeconds(Long.parseLong(digits)));
        } catch (NumberFormatException e) {
            return Optional.empty();   // more digits than a long holds: not a usable value
        }
    }

    private static Optional<Duration> untilDate(String text, Clock clock) {
        try {
            Instant at = ZonedDateTime.parse(text, DateTimeFormatter.RFC_1123_DATE_TIME).toInstant();
            Duration wait = Duration.between(clock.instant(), at);
            return Optional.of(wait.isNegative() ? Duration.ZERO : wait);
        } catch (DateTimeParseException e) {
            return Optional.empty();
        }
    }

    private static boolean isDigits(String text) {
        return text.chars().allMatch(c -> c >= '0' && c <= '9');
    }
}
