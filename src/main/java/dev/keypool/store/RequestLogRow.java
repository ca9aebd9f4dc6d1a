package dev.keypool.store;

import java.time.Instant;

/**
 * One row of the request log: what a client request asked, where it was served and what it cost. Made once per
 * request when its answer is known; of the key only its fingerprint, and no prompt or answer text unless
 * {@code requestLog.bodies} is on. A row waits in the log's queue until the writer's next beat, and a young collection
 * copies whatever is alive: so the row holds its time as a number, not an {@link Instant}, and otherwise strings the
 * request already holds (docs/decisions.md, "The request log's rows: small, and written within 100 ms").
 *
 * @param ts           when the answer was known, epoch ms (the column {@code ts})
 * @param source       {@code api}, {@code batch} (a batch line) or {@code async} (an async task)
 * @param model        the model asked for; {@code servedModel} the provider's name for it on the serving channel
 * @param pool         {@code own} (a key of the request's tenant) or {@code shared}; {@code cache-hit} or {@code cache-stale} for an
 *                     answer of a model group's response cache; null when no key served
 * @param fallbackLevel 0 = primary channel, n = n-th fallback; null when no channel served
 * @param errorCode    the gateway's error code ({@code quota_exhausted}, …), null when answered by the provider
 * @param cachedTokens prompt tokens read from the provider's prompt cache; {@code cacheWriteTokens} written to it
 * @param ttfbMs       time to the first byte of a stream, null for other answers
 * @param requestBody  the client's request body, capped; null unless {@code requestLog.bodies} is on
 * @param answerBody   the provider's answer (a stream's assembled text), capped; null unless {@code requestLog.bodies}
 */
public record RequestLogRow(long ts, String requestId, String source, String tenant, String api, String model,
                            String servedModel, String channel, String keyFingerprint, String pool, int attempts,
                            Integer fallbackLevel, int status, String errorCode, long promptTokens,
                            long completionTokens, long cachedTokens, long cacheWriteTokens, double costUsd,
                            long latencyMs, Long ttfbMs, String requestBody, String answerBody) {

    /** A row without prompt-cache writes and without bodies. */
    public RequestLogRow(long ts, String requestId, String source, String tenant, String api, String model,
                         String servedModel, String channel, String keyFingerprint, String pool, int attempts,
                         Integer fallbackLevel, int status, String errorCode, long promptTokens,
                         long completionTokens, long cachedTokens, double costUsd, long latencyMs, Long ttfbMs) {
        this(ts, requestId, source, tenant, api, model, servedModel, channel, keyFingerprint, pool, attempts,
                fallbackLevel, status, errorCode, promptTokens, completionTokens, cachedTokens, 0, costUsd, latencyMs,
                ttfbMs, null, null);
    }

    /** {@link #ts} as an instant, for readers of the log. */
    public Instant time() {
        return Instant.ofEpochMilli(ts);
    }
}
