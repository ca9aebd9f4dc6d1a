package dev.keypool.store;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.stream.IntStream;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The request log's insert, against SQLite in a temporary state.dir (PostgreSQL: RequestLogPostgresTest). */
class RequestLogWriterTest {

    @TempDir
    Path stateDir;

    private Database database;
    private RequestLogWriter writer;

    @BeforeEach
    void open() {
        database = Database.open(Optional.empty(), stateDir, 4, 5000);
        writer = new RequestLogWriter(database.dataSource());
    }

    @AfterEach
    void close() {
        database.close();
    }

    @Test
    void should_write_every_column_of_a_row() throws Exception {
        writer.insert(List.of(new RequestLogRow(Instant.ofEpochMilli(1_764_000_000_123L), "req_1", "api", "acme", "chat",
                "gpt-4o-mini", "glm-4-flash", "zhipu", "fp-1a2b", "own", 2, 1, 200, null, 11, 7, 3, 5, 0.00005, 42, 9L,
                "{\"q\":1}", "{\"a\":2}")));

        try (Connection c = database.dataSource().getConnection(); Statement s = c.createStatement();
             ResultSet r = s.executeQuery("SELECT * FROM request_log")) {
            assertThat(r.next()).isTrue();
            assertThat(r.getLong("ts")).isEqualTo(1_764_000_000_123L);
            assertThat(r.getString("request_id")).isEqualTo("req_1");
            assertThat(r.getString("source")).isEqualTo("api");
            assertThat(r.getString("tenant")).isEqualTo("acme");
            assertThat(r.getString("api")).isEqualTo("chat");
            assertThat(r.getString("model")).isEqualTo("gpt-4o-mini");
            assertThat(r.getString("served_model")).isEqualTo("glm-4-flash");
            assertThat(r.getString("channel")).isEqualTo("zhipu");
            assertThat(r.getString("key_fingerprint")).isEqualTo("fp-1a2b");
            assertThat(r.getString("pool")).isEqualTo("own");
            assertThat(r.getInt("attempts")).isEqualTo(2);
            assertThat(r.getInt("fallback_level")).isEqualTo(1);
            assertThat(r.getInt("status")).isEqualTo(200);
            assertThat(r.getString("error_code")).isNull();
            assertThat(r.getLong("prompt_tokens")).isEqualTo(11);
            assertThat(r.getLong("completion_tokens")).isEqualTo(7);
            assertThat(r.getLong("cached_tokens")).isEqualTo(3);
            assertThat(r.getLong("cache_write_tokens")).isEqualTo(5);
            assertThat(r.getDouble("cost_usd")).isEqualTo(0.00005);
            assertThat(r.getLong("latency_ms")).isEqualTo(42);
            assertThat(r.getLong("ttfb_ms")).isEqualTo(9);
            assertThat(r.getString("request_body")).isEqualTo("{\"q\":1}");
            assertThat(r.getString("answer_body")).isEqualTo("{\"a\":2}");
            assertThat(r.next()).isFalse();
        }
    }

    @Test
    void should_write_nulls_where_a_request_had_no_channel() throws Exception {
        writer.insert(List.of(refused("req_2")));

        try (Connection c = database.dataSource().getConnection(); Statement s = c.createStatement();
             ResultSet r = s.executeQuery("SELECT fallback_level, ttfb_ms, channel, error_code FROM request_log")) {
            assertThat(r.next()).isTrue();
            assertThat(r.getObject("fallback_level")).isNull();
            assertThat(r.getObject("ttfb_ms")).isNull();
            assertThat(r.getObject("channel")).isNull();
            assertThat(r.getString("error_code")).isEqualTo("model_not_found");
        }
    }

    @Test
    void should_write_more_rows_than_one_jdbc_batch_in_their_order() throws Exception {
        List<RequestLogRow> rows = IntStream.range(0, 1_234).mapToObj(i -> refused("req_" + i)).toList();

        writer.insert(rows);

        assertThat(requestIds()).hasSize(1_234).startsWith("req_0", "req_1").endsWith("req_1233");
    }

    @Test
    void should_write_none_of_the_rows_when_the_database_refuses_one() throws Exception {
        List<RequestLogRow> rows = new ArrayList<>(IntStream.range(0, 700).mapToObj(i -> refused("req_" + i)).toList());
        // request_id is NOT NULL: the 601st row, in the second JDBC batch, is refused
        rows.set(600, refused(null));

        assertThatThrownBy(() -> writer.insert(rows)).isInstanceOf(SQLException.class);

        assertThat(requestIds()).isEmpty();
        writer.insert(List.of(refused("req_after")));
        assertThat(requestIds()).containsExactly("req_after");
    }

    private static RequestLogRow refused(String requestId) {
        return new RequestLogRow(Instant.ofEpochMilli(1_000), requestId, "api", "none", "chat", "no-such-model", null,
                null, null, null, 0, null, 404, "model_not_found", 0, 0, 0, 0.0, 1, null);
    }

    private List<String> requestIds() throws SQLException {
        List<String> ids = new ArrayList<>();
        try (Connection c = database.dataSource().getConnection(); Statement s = c.createStatement();
             ResultSet r = s.executeQuery("SELECT request_id FROM request_log ORDER BY id")) {
            while (r.next()) {
                ids.add(r.getString(1));
            }
        }
        return ids;
    }
}
