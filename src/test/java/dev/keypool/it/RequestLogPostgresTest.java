package dev.keypool.it;

import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import dev.keypool.testing.PostgresServer;
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
        postgres.stop();
        try {
            for (int i = 0; i < 5; i++) {
                long start = System.nanoTime();
                assertThat(chat("glm-4-flash").statusCode()).isEqualTo(200);
                assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(4));
            }
            // a batch waits up to twice the pool's 5 s for a connection before its rows count as dropped
            await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(100)).until(() -> dropped() >= 5);
        } finally {
            postgres.restart();
        }

        assertThat(chat("glm-4-flash").statusCode()).isEqualTo(200);
        assertThat(postgres.rows().await(before + 1)).hasSize(before + 1);
    }

    private double dropped() throws Exception {
        return get("/observe/metrics").body().lines().filter(l -> l.startsWith("keypool_request_log_dropped_total"))
                .mapToDouble(l -> Double.parseDouble(l.substring(l.lastIndexOf(' ') + 1))).sum();
    }
}
