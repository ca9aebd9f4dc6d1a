package dev.keypool.gateway;

import java.time.Duration;

/**
 * What one channel's upstream calls tell the metrics (design §10), from {@link Attempt}, the one place an upstream
 * outcome is recorded. Implemented over Micrometer by {@code dev.keypool.metrics.GatewayMetrics}.
 */
public interface ChannelMeters {

    /** Counts nothing: channels that nobody measures (unit tests). */
    ChannelMeters NONE = new ChannelMeters() {
        @Override
        public void upstreamCall(Duration elapsed) {
        }

        @Override
        public void firstByte(Duration timeToFirstByte) {
        }

        @Override
        public void answered(String tenant, long promptTokens, long completionTokens, double costUsd) {
        }
    };

    /** One upstream call ended, however it ended. */
    void upstreamCall(Duration elapsed);

    /** A streamed answer's first event arrived. */
    void firstByte(Duration timeToFirstByte);

    /** An answered call's tokens and cost, for the tenant it was made for. */
    void answered(String tenant, long promptTokens, long completionTokens, double costUsd);
}
