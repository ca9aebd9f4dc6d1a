package dev.keypool.tenant;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A tenant's limits as OpenAI reports its own on every answer: {@code x-ratelimit-limit-requests},
 * {@code -remaining-requests}, {@code -reset-requests} (time until the bucket is full again), and the {@code -tokens}
 * trio; each trio only when the tenant has that limit ({@code rpm}, {@code tpm}).
 *
 * @param limitRequests null without {@code rpm}; then the other request fields are unused
 * @param limitTokens   null without {@code tpm}; then the other token fields are unused
 */
public record RateLimits(Long limitRequests, long remainingRequests, Duration resetRequests,
                         Long limitTokens, long remainingTokens, Duration resetTokens) {

    /** The headers, with OpenAI's names and formats ({@code reset} as {@code 1s}, {@code 6m0s}, {@code 20ms}). */
    public Map<String, String> headers() {
        Map<String, String> headers = new LinkedHashMap<>();
        if (limitRequests != null) {
            headers.put("x-ratelimit-limit-requests", String.valueOf(limitRequests));
            headers.put("x-ratelimit-remaining-requests", String.valueOf(remainingRequests));
            headers.put("x-ratelimit-reset-requests", format(resetRequests));
        }
        if (limitTokens != null) {
            headers.put("x-ratelimit-limit-tokens", String.valueOf(limitTokens));
            headers.put("x-ratelimit-remaining-tokens", String.valueOf(remainingTokens));
            headers.put("x-ratelimit-reset-tokens", format(resetTokens));
        }
        return headers;
    }

    /**
     * A duration as OpenAI writes it (Go's {@code time.Duration} text, to the millisecond): {@code 0s}, {@code 20ms},
     * {@code 1s}, {@code 1.5s}, {@code 6m0s}, {@code 1h2m3s}.
     */
    static String format(Duration duration) {
        long millis = Math.max(0, duration.toMillis() + (duration.toNanosPart() % 1_000_000 > 0 ? 1 : 0));
        if (millis == 0) {
            return "0s";
        }
        if (millis < 1000) {
            return millis + "ms";
        }
        long hours = millis / 3_600_000;
        long minutes = millis / 60_000 % 60;
        long seconds = millis / 1000 % 60;
        long fraction = millis % 1000;
        StringBuilder text = new StringBuilder();
        if (hours > 0) {
            text.append(hours).append('h');
        }
        if (hours > 0 || minutes > 0) {
            text.append(minutes).append('m');
        }
        text.append(seconds);
        if (fraction > 0) {
            text.append('.').append(String.format("%03d", fraction).replaceAll("0+$", ""));
        }
        return text.append('s').toString();
    }
}
