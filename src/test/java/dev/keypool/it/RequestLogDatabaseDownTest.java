package dev.keypool.it;

import java.net.http.HttpResponse;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.Properties;

import dev.keypool.testing.RequestLogRows;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A database that does not take the rows (here: SQLite locked by another process's open transaction) fails no request
 * and holds none: the rows it refused are counted in keypool_request_log_dropped_total and said once in the log, and
 * once it takes rows again the log goes on.
 */
class RequestLogDatabaseDownTest extends GatewayTestSupport {

    @Override
    protected Properties overrideProperties() {
        Properties p = super.overrideProperties();
        // each refused batch waits this long for the lock (5 s in application.properties)
        p.put("keypool.database.lock-wait-ms", "500");
        return p;
    }

    @Override
    protected String keypoolYaml() {
        return """
                channels:
                  - name: zhipu
                    baseUrl: UPSTREAM
                    models: [glm-4-flash]
                    keys:
                      - key: sk-zhipu-1
                """;
    }

    @Test
    void should_answer_every_request_and_count_the_rows_lost() throws Exception {
        RequestLogRows rows = RequestLogRows.sqlite(context.getPropertiesComponent().resolveProperty("state.dir").orElseThrow());
        assertThat(chat("glm-4-flash").statusCode()).isEqualTo(200);
        rows.await(1);
        try (Connection locker = rows.connect(); Statement lock = locker.createStatement()) {
            lock.execute("BEGIN EXCLUSIVE");
            for (int i = 0; i < 5; i++) {
                long start = System.nanoTime();
                HttpResponse<String> answer = chat("glm-4-flash");
                assertThat(answer.statusCode()).isEqualTo(200);
                // the writer waits for the lock (busy_timeout), then gives the batch up: no request waits with it
                assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(4));
            }
            await().atMost(Duration.ofSeconds(20)).pollInterval(Duration.ofMillis(100))
                    .until(() -> dropped() >= 5);
            lock.execute("ROLLBACK");
        }
        assertThat(logs.lines()).filteredOn(line -> line.contains("Request log: the database refused")).hasSize(1);

        assertThat(chat("glm-4-flash").statusCode()).isEqualTo(200);
        assertThat(rows.await(2)).hasSize(2);
    }

    private double dropped() throws Exception {
        return get("/observe/metrics").body().lines().filter(l -> l.startsWith("keypool_request_log_dropped_total"))
                .mapToDouble(l -> Double.parseDouble(l.substring(l.lastIndexOf(' ') + 1))).sum();
    }
}
