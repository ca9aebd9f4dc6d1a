package dev.keypool.it;

import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Map;

import dev.keypool.testing.FakeUpstream;
import dev.keypool.testing.GatewayInstance;
import dev.keypool.testing.MutableClock;
import dev.keypool.testing.RequestLogRows;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A stopping gateway writes the rows its log still holds: here the writer's beat is an hour, so only the stop can
 * have written them.
 */
class RequestLogStopTest {

    @TempDir
    Path dir;

    private final FakeUpstream upstream = new FakeUpstream();

    @AfterEach
    void stop() {
        upstream.close();
    }

    @Test
    void should_write_the_rows_still_queued_when_the_gateway_stops() {
        GatewayInstance gateway = GatewayInstance.start(dir, "gateway", """
                channels:
                  - name: zhipu
                    baseUrl: %s
                    models: [glm-4-flash]
                    keys:
                      - key: sk-zhipu-stop
                """.formatted(upstream.baseUrl()), new MutableClock(Instant.parse("2026-12-02T10:00:00Z")),
                Map.of("keypool.request-log.batch-ms", "3600000"));
        RequestLogRows rows = RequestLogRows.sqlite(gateway.stateDir().toString());
        String served;
        String refused;
        try {
            served = gateway.chat("glm-4-flash", null).headers().firstValue("X-Request-Id").orElseThrow();
            refused = gateway.chat("no-such-model", null).headers().firstValue("X-Request-Id").orElseThrow();
            assertThat(rows.all()).isEmpty();
        } finally {
            gateway.close();
        }

        List<Map<String, Object>> written = rows.all();

        assertThat(written).extracting(row -> row.get("request_id")).containsExactly(served, refused);
    }
}
