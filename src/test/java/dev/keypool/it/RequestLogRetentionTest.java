package dev.keypool.it;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;

import dev.keypool.testing.RequestLogRows;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/** Rows older than database.retention are deleted by the retention route; younger ones stay. */
class RequestLogRetentionTest extends GatewayTestSupport {

    @Override
    protected String keypoolYaml() {
        return """
                channels:
                  - name: zhipu
                    baseUrl: UPSTREAM
                    models: [glm-4-flash]
                    keys:
                      - key: sk-zhipu-1
                database:
                  retention: 2d
                """;
    }

    @Override
    protected Properties overrideProperties() {
        Properties p = super.overrideProperties();
        p.put("keypool.request-log.retention-check-ms", "100");
        return p;
    }

    @Test
    void should_delete_rows_older_than_the_retention() throws Exception {
        RequestLogRows rows = RequestLogRows.sqlite(context.getPropertiesComponent().resolveProperty("state.dir").orElseThrow());
        assertThat(chat("glm-4-flash").statusCode()).isEqualTo(200);
        rows.await(1);
        clock.advance(Duration.ofDays(1));
        assertThat(chat("glm-4-flash").statusCode()).isEqualTo(200);
        rows.await(2);

        // the first row is now 2 days and 1 hour old, the second 1 day and 1 hour
        clock.advance(Duration.ofDays(1).plusHours(1));

        List<Map<String, Object>> left = await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(50))
                .until(rows::all, r -> r.size() == 1);
        assertThat(((Number) left.get(0).get("ts")).longValue()).isEqualTo(clock.millis() - Duration.ofDays(1).plusHours(1).toMillis());
    }
}
