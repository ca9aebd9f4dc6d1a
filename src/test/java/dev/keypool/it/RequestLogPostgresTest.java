package dev.keypool.it;

import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;

import dev.keypool.testing.LogCapture;
import dev.keypool.testing.PostgresServer;
import org.apache.logging.log4j.Level;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * With database.url, the request log lives in PostgreSQL (a real server started by the test): the same schema by
 * Flyway and the same rows as in SQLite; and a server that goes down fails no request, and takes rows again when back.
 */
@Tag("slow")
class RequestLogPostgresTest extends GatewayTestSupport {

    private static PostgresServer postgres;

    @BeforeAll
    static void startPostgres() {
        postgres = PostgresServer.start();
    }

    @AfterAll
    static void stopPostgres() {
        postgres.close();
    }

    @Override
    protected String keypoolYaml() {
        return """
                channels:
                  - name: zhipu
                    baseUrl: UPSTREAM
                    models: [glm-4-flash]
                    pricing:
                      glm-4-flash: {input: 2.0, output: 4.0}
                    keys:
                      - key: sk-zhipu-1
                database:
                  url: PG_URL
                admin:
                  token: admin-secret
                """.replace("PG_URL", postgres.url());
    }

    @Override
    protected Properties overrideProperties() {
        Properties p = super.overrideProperties();
        p.put("keypool.request-log.retention-check-ms", "100");
        return p;
    }

    @Test
    void should_write_the_rows_to_postgresql() throws Exception {
        int before = postgres.rows().all().size();
        HttpResponse<String> served = chat("glm-4-flash");
        assertThat(served.statusCode()).isEqualTo(200);
        assertThat(chat("no-such-model").statusCode()).isEqualTo(404);

        List<Map<String, Object>> rows = postgres.rows().await(before + 2).subList(before, before + 2);

        assertThat(rows.get(0).get("request_id")).isEqualTo(served.headers().firstValue("X-Request-Id").orElseThrow());
        assertThat(rows.get(0).get("channel")).isEqualTo("zhipu");
        assertThat(rows.get(0).get("status")).isEqualTo(200);
        assertThat(rows.get(0).get("prompt_tokens")).isEqualTo(11L);
        assertThat(((Number) rows.get(0).get("cost_usd")).doubleValue()).isEqualTo(0.00005);
        assertThat(rows.get(1).get("status")).isEqualTo(404);
        assertThat(rows.get(1).get("error_code")).isEqualTo("model_not_found");
        assertThat(rows.get(1).get("fallback_level")).isNull();
        // the admin API reads them back with the same SQL as on SQLite
        assertThat(getWithToken("/admin/requests?status=404&limit=1", "admin-secret").body())
                .contains(rows.get(1).get("request_id").toString(), "\"errorCode\":\"model_not_found\"");
    }

    @Test
    void should_answer_every_request_while_postgresql_is_down() throws Exception {
        assertThat(chat("glm-4-flash").statusCode()).isEqualTo(200);
        int before = postgres.rows().await(1).size();
        LogCapture captured = LogCapture.attach();
        postgres.stop();
        try {
            for (int i = 0; i < 5; i++) {
                long start = System.nanoTime();
                assertThat(chat("glm-4-flash").statusCode()).isEqualTo(200);
                assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(4));
            }
            // a batch waits up to twice the pool's 5 s for a connection before its rows count as dropped
            await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(100)).until(() -> dropped() >= 5);
            // the retention's delete fails too, said in one line, not an error with its stack trace on every beat
            await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(100)).until(() -> captured
                    .messages(Level.WARN).stream().anyMatch(m -> m.startsWith("request-log-retention: the database failed")));
        } finally {
            postgres.restart();
            captured.close();
        }
        assertThat(captured.events()).filteredOn(line -> line.level().isMoreSpecificThan(Level.ERROR)).isEmpty();
        assertThat(captured.messages(Level.WARN)).filteredOn(m -> m.startsWith("request-log-retention:")).hasSize(1);

        assertThat(chat("glm-4-flash").statusCode()).isEqualTo(200);
        assertThat(postgres.rows().await(before + 1)).hasSize(before + 1);
    }

    @Test
    void should_say_once_that_the_beats_on_the_database_fail_and_once_that_they_work_again() throws Exception {
        try (LogCapture captured = LogCapture.of(dev.keypool.camel.DatabaseBeats.class)) {
            postgres.stop();
            try {
                // each beat waits the pool's 5 s for a connection; the retention's beat is 100 ms here
                await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(100)).until(() -> captured
                        .messages(Level.WARN).stream().filter(m -> m.startsWith("request-log-retention:")).count() == 1
                        && captured.messages(Level.WARN).stream().anyMatch(m -> m.startsWith("batch-claims:")));
            } finally {
                postgres.restart();
            }
            await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(100)).until(() -> captured
                    .messages(Level.INFO).contains("request-log-retention: the database answers again"));

            assertThat(captured.messages(Level.WARN)).filteredOn(m -> m.startsWith("request-log-retention:")).containsExactly(
                    "request-log-retention: the database failed (SQLTransientConnectionException (SQLState 08001)); "
                            + "trying again on each beat, said again when it works");
            assertThat(captured.all()).doesNotContain(postgres.url());
        }
    }

    private double dropped() throws Exception {
        return get("/observe/metrics").body().lines().filter(l -> l.startsWith("keypool_request_log_dropped_total"))
                .mapToDouble(l -> Double.parseDouble(l.substring(l.lastIndexOf(' ') + 1))).sum();
    }
}
