package dev.keypool.gateway;

import java.time.Duration;
import java.util.Optional;
import java.util.OptionalLong;

import dev.keypool.pool.ApiKey;
import dev.keypool.pool.KeyPool;

/**
 * One upstream call of a request, on one key of one channel. It ends once, and how it ended is recorded here and
 * nowhere else: on the key (its pool and its quota reservation), on the channel's breaker and cost ledger, on the
 * tenant's usage, and on the request. The plain answer, the
 * stream relay and every error handler of the upstream call go through it.
 */
public final class Attempt {

    /** The provider said nothing of the call's tokens. */
    private static final OptionalLong NOT_REPORTED = OptionalLong.empty();

    private final GatewayRequest request;
    private final Channel channel;
    private final KeyPool.Lease lease;
    private final ApiKey key;
    private final long startNanos = System.nanoTime();
    private boolean ended;

    Attempt(GatewayRequest request, Channel channel, KeyPool.Lease lease) {
        this.request = request;
        this.channel = channel;
        this.lease = lease;
        this.key = lease.key();
    }

    public ApiKey key() {
        return key;
    }

    public Channel channel() {
        return channel;
    }

    /** Time since the call went out. */
    public Duration elapsed() {
        return Duration.ofNanos(System.nanoTime() - startNanos);
    }

    /** A stream's first event arrived: the request is this key's now, with no failover; the call goes on. */
    public void firstByte() {
        Duration timeToFirstByte = elapsed();
        channel.pool().outcomes().recordFirstByte(key, timeToFirstByte);
        channel.meters().firstByte(timeToFirstByte);
        request.firstByte();
        request.served(channel, key);
    }

    /** A 2xx answer, or a stream that ended with [DONE]. */
    public void succeeded(long promptTokens, long completionTokens) {
        succeeded(new TokenUsage(promptTokens, completionTokens));
    }

    /** A 2xx answer, or a stream that ended with [DONE], with the usage the provider reported (prompt cache included). */
    public void succeeded(TokenUsage usage) {
        long promptTokens = usage.prompt();
        long completionTokens = usage.completion();
        long used = promptTokens + completionTokens;
        if (end(used > 0 ? OptionalLong.of(used) : NOT_REPORTED, false)) {
            channel.pool().outcomes().recordSuccess(key, request.lastLatency(), promptTokens, completionTokens);
            double cost = channel.costs().record(key.fingerprint(), channel.upstreamModel(request.model()), promptTokens,
                    completionTokens, usage.cachedTokens(), usage.cacheWriteTokens());
            request.charge().ifPresent(charge -> charge.answered(request.keyScope().isOwn(key), promptTokens,
                    completionTokens, cost));
            channel.meters().answered(request.tenant(), promptTokens, completionTokens, cost);
            request.answered(promptTokens, completionTokens, cost);
            request.cached(usage.cachedTokens(), usage.cacheWriteTokens());
            channel.breaker().onKeySuccess(key.fingerprint());
            request.served(channel, key);
        }
    }

    /** A 429: the key cools; another key may be tried. */
    public void rateLimited(Optional<Duration> retryAfter) {
        if (end(NOT_REPORTED, true)) {
            channel.pool().outcomes().recordRateLimited(key, request.lastLatency(), retryAfter);
            request.keyRefused("429");
        }
    }

    /** A 401/402/403: the key is disabled; another key may be tried. */
    public void rejected(int status) {
        if (end(NOT_REPORTED, true)) {
            channel.pool().outcomes().recordRejected(key, request.lastLatency(), status);
            request.keyRefused(String.valueOf(status));
        }
    }

    /** A 5xx, 408, timeout or connection error before any byte reached the client: another key may be tried. */
    public void failed(String cause) {
        if (end(NOT_REPORTED, true)) {
            keyFailed(cause);
            request.attemptFailed(cause);
        }
    }

    /**
     * The provider refused the call's HTTP/2 stream (RST_STREAM with REFUSED_STREAM, over its stream limit or while it
     * sheds load): it did not process the call (RFC 9113 §8.7), which says nothing of the key or the channel, so nothing
     * counts against either; the quota the call reserved is given back, and the key may be tried again.
     */
    public void refused() {
        if (end(NOT_REPORTED, true)) {
            request.attemptRefused(key);
        }
    }

    /** A stream that broke after its first byte: too late to fail over, but a failure of the key and channel. */
    public void streamBroke(String cause) {
        // the provider produced part of an answer: its estimate stays counted
        if (end(NOT_REPORTED, false)) {
            keyFailed(cause);
            request.streamBroke();
        }
    }

    /** A 4xx passed back to the client as it is: the request was wrong, not the key, and it is answered. */
    public void clientError() {
        if (end(NOT_REPORTED, true)) {
            channel.pool().outcomes().recordClientError(key, request.lastLatency());
            request.served(channel, key);
        }
    }

    /**
     * The gateway itself failed after the key was picked (a bug, or a step an operator added to the routes that
     * throws): the provider was not at fault, so nothing counts against the key or its channel's breaker; the key is
     * free again and the channel is left, as after a failure, with {@code cause} as the reason.
     *
     * @return whether this ended the attempt: false when it had ended already (an exception of key selection in a
     *         retry comes after the previous attempt's outcome, and is not the gateway failing)
     */
    public boolean gatewayFailed(String cause) {
        if (end(NOT_REPORTED, true)) {
            request.gatewayFailed(cause);
            return true;
        }
        return false;
    }

    /** The client left before the answer was complete: nobody's fault, the key is free again. */
    public void clientGone() {
        if (end(NOT_REPORTED, false)) {
            channel.pool().outcomes().recordClientError(key, request.lastLatency());
        }
    }

    private void keyFailed(String cause) {
        int inARow = channel.pool().outcomes().recordFailure(key, request.lastLatency(), cause);
        channel.breaker().onKeyFailure(key.fingerprint(), inARow);
    }

    /**
     * True the first time only, so that every outcome is recorded once; then settles the call's quota reservation:
     * its tokens become {@code usedTokens} when the provider reported them, else stay counted or, with
     * {@code failed}, are given back.
     */
    private boolean end(OptionalLong usedTokens, boolean failed) {
        if (ended) {
            return false;
        }
        ended = true;
        Duration elapsed = elapsed();
        request.attemptEnded(this, elapsed);
        channel.meters().upstreamCall(elapsed);
        channel.pool().leases().settle(lease, usedTokens, failed);
        return true;
    }
}
