package dev.keypool.it;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.keypool.testing.PostgresServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * GET /admin/usage with the request log in PostgreSQL (a real server started by the test): the same statement as on
 * SQLite groups the rows per model and UTC hour, with the same sums.
 */
@Tag("slow")
class AdminUsagePostgresTest extends GatewayTestSupport {

    private static final ObjectMapper JSON = new ObjectMapper();
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
                    models: [glm-4-flash, glm-4-air]
                    pricing:
                      glm-4-flash: {input: 2.0, output: 4.0}
                    keys:
                      - key: sk-zhipu-pg-usage
                database:
                  url: PG_URL
                admin:
                  token: admin-secret
                """.replace("PG_URL", postgres.url());
    }

    @Test
    void should_sum_the_rows_per_model_and_hour_in_postgresql() throws Exception {
        clock.set(Instant.parse("2026-12-01T10:15:00Z"));
        chat("glm-4-flash");
        chat("glm-4-flash");
        chat("glm-4-air");
        clock.set(Instant.parse("2026-12-01T11:45:00Z"));
        chat("glm-4-flash");
        chat("no-such-model");
        await().until(() -> postgres.rows().all().size() >= 5);

        // start | group | requests | prompt | completion | cost | errors; each priced call 0.00005 USD
        assertThat(usage("groupBy=model&interval=hour")).containsExactlyInAnyOrder(
                "2026-12-01T10:00:00Z|glm-4-air|1|11|7|0.000000|0",
                "2026-12-01T10:00:00Z|glm-4-flash|2|22|14|0.000100|0",
                "2026-12-01T11:00:00Z|glm-4-flash|1|11|7|0.000050|0",
                "2026-12-01T11:00:00Z|no-such-model|1|0|0|0.000000|1");
        assertThat(usage("groupBy=channel&interval=day")).containsExactlyInAnyOrder(
                "2026-12-01T00:00:00Z|zhipu|4|44|28|0.000150|0",
                "2026-12-01T00:00:00Z|null|1|0|0|0.000000|1");
    }

    private List<String> usage(String query) throws Exception {
        var answer = getWithToken("/admin/usage?from=2026-12-01T00:00:00Z&to=2026-12-02T00:00:00Z&" + query, "admin-secret");
        assertThat(answer.statusCode()).as(answer.body()).isEqualTo(200);
        List<String> lines = new ArrayList<>();
        for (JsonNode b : JSON.readTree(answer.body()).path("data")) {
            lines.add(String.join("|", b.path("start").asText(), b.path("group").asText(), b.path("requests").asText(),
                    b.path("promptTokens").asText(), b.path("completionTokens").asText(),
                    String.format(Locale.ROOT, "%.6f", b.path("costUsd").asDouble()), b.path("errors").asText()));
        }
        return lines;
    }
}
