package dev.keypool.it;

import java.net.http.HttpResponse;

import dev.keypool.breaker.BreakerState;
import org.apache.logging.log4j.Level;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Each breaker trigger trips its channel on its own, over real HTTP; the request still gets served by the fallback. The
 * tests share one gateway, each on a channel of its own.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class BreakerTriggersTest extends GatewayTestSupport {

    @Override
    protected String keypoolYaml() {
        return """
                channels:
                  - name: exhaust
                    baseUrl: UPSTREAM
                    models: [m-exhaust]
                    fallback: [backup]
                    breaker: {triggers: [pool_exhausted]}
                    keys:
                      - key: sk-exhaust-1
                      - key: sk-exhaust-2
                  - name: errors
                    baseUrl: UPSTREAM
                    models: [m-errors]
                    maxRetries: 0
                    disableAfter: 100
                    fallback: [backup]
                    breaker: {triggers: [error_rate], errorRateThreshold: 50, minimumCalls: 4}
                    keys:
                      - key: sk-errors-1
                      - key: sk-errors-2
                  - name: slow
                    baseUrl: UPSTREAM
                    models: [m-slow]
                    fallback: [backup]
                    breaker: {triggers: [latency], latencyThresholdMs: 100, minimumCalls: 3}
                    keys:
                      - key: sk-slow-1
                  - name: streak
                    baseUrl: UPSTREAM
                    models: [m-streak]
                    maxRetries: 0
                    disableAfter: 100
                    fallback: [backup]
                    breaker: {triggers: [consecutive_fail], consecutiveFailThreshold: 3}
                    keys:
                      - key: sk-streak-1
                  - name: trips-fast
                    baseUrl: UPSTREAM
                    models: [m-fast]
                    maxRetries: 3
                    fallback: [backup]
                    breaker: {triggers: [consecutive_fail], consecutiveFailThreshold: 1}
                    keys:
                      - key: sk-fast-1
                      - key: sk-fast-2
                      - key: sk-fast-3
                  - name: exhaust-only
                    baseUrl: UPSTREAM
                    models: [m-exhaust-only]
                    fallback: [backup]
                    breaker: {triggers: [pool_exhausted]}
                    keys:
                      - key: sk-exhaust-only-1
                      - key: sk-exhaust-only-2
                  - name: client-errors
                    baseUrl: UPSTREAM
                    models: [m-client-errors]
                    maxRetries: 0
                    disableAfter: 100
                    fallback: [backup]
                    breaker: {triggers: [error_rate], errorRateThreshold: 50, minimumCalls: 4}
                    keys:
                      - key: sk-client-errors-1
                      - key: sk-client-errors-2
                  - name: backup
                    baseUrl: UPSTREAM
                    models: ["*"]
                    keys:
                      - key: sk-backup-1
                """;
    }

    @Test
    void should_trip_on_pool_exhausted() throws Exception {
        upstream.answer("sk-exhaust-1", 429, "60", null).answer("sk-exhaust-2", 429, "60", null);

        HttpResponse<String> r = chat("m-exhaust");

        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(r.headers().firstValue("X-KeyPool-Channel")).contains("backup");
        assertThat(r.headers().firstValue("X-Fallback-Level")).contains("1");
        assertThat(channel("exhaust").breaker().state()).isEqualTo(BreakerState.OPEN);
        assertThat(logs.messages(Level.WARN)).contains("Channel [exhaust] tripped: pool_exhausted (no usable key)");
        assertThat(logs.messages(Level.INFO)).contains("Request fell back exhaust -> backup (level 1): pool_exhausted");
    }

    @Test
    void should_trip_on_error_rate_once_minimum_calls_are_reached() throws Exception {
        upstream.answer("sk-errors-1", 500);   // every other visit fails: 50 %

        for (int i = 0; i < 3; i++) {
            assertThat(chat("m-errors").statusCode()).isEqualTo(200);
            assertThat(channel("errors").breaker().state()).isEqualTo(BreakerState.CLOSED);
        }
        assertThat(chat("m-errors").statusCode()).isEqualTo(200);

        assertThat(channel("errors").breaker().state()).isEqualTo(BreakerState.OPEN);
        assertThat(logs.messages(Level.WARN)).contains("Channel [errors] tripped: error_rate (50.0% >= 50%)");
        int hits = upstream.hits("sk-errors-1") + upstream.hits("sk-errors-2");
        assertThat(chat("m-errors").headers().firstValue("X-KeyPool-Channel")).contains("backup");
        assertThat(upstream.hits("sk-errors-1") + upstream.hits("sk-errors-2")).isEqualTo(hits);
    }

    @Test
    void should_trip_on_average_latency() throws Exception {
        upstream.slow("sk-slow-1", 250);

        for (int i = 0; i < 3; i++) {
            assertThat(chat("m-slow").statusCode()).isEqualTo(200);
        }

        assertThat(channel("slow").breaker().state()).isEqualTo(BreakerState.OPEN);
        assertThat(logs.messages(Level.WARN)).anyMatch(l -> l.matches("Channel \\[slow\\] tripped: latency \\(\\d+(\\.\\d)?ms > 100ms\\)"));
    }

    @Test
    void should_trip_on_consecutive_failures_of_a_key() throws Exception {
        upstream.answer("sk-streak-1", 503);

        chat("m-streak");
        chat("m-streak");
        assertThat(channel("streak").breaker().state()).isEqualTo(BreakerState.CLOSED);
        HttpResponse<String> third = chat("m-streak");

        assertThat(third.statusCode()).isEqualTo(200);
        assertThat(channel("streak").breaker().state()).isEqualTo(BreakerState.OPEN);
        assertThat(logs.messages(Level.WARN)).contains("Channel [streak] tripped: consecutive_fail (3 >= 3)");
    }

    @Test
    void should_stop_retrying_in_a_channel_whose_breaker_opened_during_the_request() throws Exception {
        upstream.answer("sk-fast-1", 500).answer("sk-fast-2", 500).answer("sk-fast-3", 500);

        HttpResponse<String> r = chat("m-fast");

        assertThat(r.headers().firstValue("X-KeyPool-Channel")).contains("backup");
        assertThat(r.headers().firstValue("X-KeyPool-Attempts")).contains("2");
        assertThat(upstream.hits("sk-fast-1") + upstream.hits("sk-fast-2") + upstream.hits("sk-fast-3")).isEqualTo(1);
        assertThat(channel("trips-fast").breaker().state()).isEqualTo(BreakerState.OPEN);
    }

    @Test
    void should_not_trip_on_a_trigger_that_is_not_enabled() throws Exception {
        // "exhaust-only" only has pool_exhausted: upstream errors on every attempt leave it CLOSED
        upstream.answer("sk-exhaust-only-1", 500).answer("sk-exhaust-only-2", 500);
        for (int i = 0; i < 2; i++) {
            assertThat(chat("m-exhaust-only").headers().firstValue("X-KeyPool-Channel")).contains("backup");
        }
        assertThat(channel("exhaust-only").breaker().figures().errorRatePercent()).isEqualTo(100.0);
        assertThat(channel("exhaust-only").breaker().state()).isEqualTo(BreakerState.CLOSED);
    }

    @Test
    void should_count_a_client_error_passed_back_as_a_success() throws Exception {
        upstream.answer("sk-client-errors-1", 400).answer("sk-client-errors-2", 422);
        for (int i = 0; i < 8; i++) {
            assertThat(chat("m-client-errors").statusCode()).isIn(400, 422);
        }
        assertThat(channel("client-errors").breaker().state()).isEqualTo(BreakerState.CLOSED);
        assertThat(channel("client-errors").breaker().figures().errorRatePercent()).isZero();
    }
}
