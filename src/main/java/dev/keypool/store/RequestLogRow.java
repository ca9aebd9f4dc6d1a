package dev.keypool.store;

import java.time.Instant;
import java.util.HashMap;
import java.util.Map;

/**
 * One row of the request log: what a client request asked, where it was served and what it cost. Made once per
 * request when its answer is known; of the key only its fingerprint, and no prompt or answer text unless
 * {@code requestLog.bodies} is on.
 *
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
public record RequestLogRow(Instant time, String requestId, String source, String tenant, String api, String model,
                            String servedModel, String channel, String keyFingerprint, String pool, int attempts,
                            Integer fallbackLevel, int status, String errorCode, long promptTokens,
                            long completionTokens, long cachedTokens, long cacheWriteTokens, double costUsd,
                            long latencyMs, Long ttfbMs, String requestBody, String answerBody) {

    /** A row without prompt-cache writes and without bodies. */
    public RequestLogRow(Instant time, String requestId, String source, String tenant, String api, String model,
                         String servedModel, String channel, String keyFingerprint, String pool, int attempts,
                         Integer fallbackLevel, int status, String errorCode, long promptTokens,
                         long completionTokens, long cachedTokens, double costUsd, long latencyMs, Long ttfbMs) {
        this(time, requestId, source, tenant, api, model, servedModel, channel, keyFingerprint, pool, attempts,
                fallbackLevel, status, errorCode, promptTokens, completionTokens, cachedTokens, 0, costUsd, latencyMs,
                ttfbMs, null, null);
    }

    /** The row by column name, as the batched INSERT of routes/request-log.camel.yaml reads it. */
    public Map<String, Object> parameters() {
        Map<String, Object> p = new HashMap<>(32);
        p.put("ts", time.toEpochMilli());
        p.put("request_id", requestId);
        p.put("source", source);
        p.put("tenant", tenant);
        p.put("api", api);
        p.put("model", model);
        p.put("served_model", servedModel);
        p.put("channel", channel);
        p.put("key_fingerprint", keyFingerprint);
        p.put("pool", pool);
        p.put("attempts", attempts);
        p.put("fallback_level", fallbackLevel);
        p.put("status", status);
        p.put("error_code", errorCode);
        p.put("prompt_tokens", promptTokens);
        p.put("completion_tokens", completionTokens);
        p.put("cached_tokens", cachedTokens);
        p.put("cache_write_tokens", cacheWriteTokens);
        p.put("cost_usd", costUsd);
        p.put("latency_ms", latencyMs);
        p.put("ttfb_ms", ttfbMs);
        p.put("request_body", requestBody);
        p.put("answer_body", answerBody);
        return p;
    }
}
