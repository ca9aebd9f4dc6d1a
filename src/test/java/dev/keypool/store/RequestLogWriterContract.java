package dev.keypool.store;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.IntStream;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * What every request log writer does, whatever the database: each column as the row has it, nulls where a request had
 * no channel, any text in the bodies kept as it was, every row of a call in its order, and none of them when the
 * database refuses one.
 */
abstract class RequestLogWriterContract {

    /** The database under test, its schema migrated. */
    protected abstract Database database();

    private RequestLogWriter writer;

    @BeforeEach
    void emptyLog() throws SQLException {
        writer = RequestLogWriter.of(database());
        try (Connection c = database().dataSource().getConnection(); Statement s = c.createStatement()) {
            s.executeUpdate("DELETE FROM request_log");
        }
    }

    @Test
    void should_write_every_column_of_a_row() throws Exception {
        writer.insert(List.of(new RequestLogRow(1_764_000_000_123L, "req_1", "api", "acme", "chat",
                "gpt-4o-mini", "glm-4-flash", "zhipu", "fp-1a2b", "own", 2, 1, 200, null, 11, 7, 3, 5, 0.00005, 42, 9L,
                "{\"q\":1}", "{\"a\":2}")));

        try (Connection c = database().dataSource().getConnection(); Statement s = c.createStatement();
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

        try (Connection c = database().dataSource().getConnection(); Statement s = c.createStatement();
             ResultSet r = s.executeQuery("SELECT fallback_level, ttfb_ms, channel, error_code, request_body FROM request_log")) {
            assertThat(r.next()).isTrue();
            assertThat(r.getObject("fallback_level")).isNull();
            assertThat(r.getObject("ttfb_ms")).isNull();
            assertThat(r.getObject("channel")).isNull();
            assertThat(r.getObject("request_body")).isNull();
            assertThat(r.getString("error_code")).isEqualTo("model_not_found");
        }
    }

    @Test
    void should_keep_any_text_of_a_body_as_it_was() throws Exception {
        // what a text format could take for its own: separators, line ends, escapes, its null marker; and wide text
        String body = "{\"content\":\"a\tb\nc\r\nd \\\\ \\N \\t \\\" ' , ; | é ✓ 😀\"}\t\\N";
        String answer = "\\N";
        writer.insert(List.of(served("req_text", body, answer)));

        try (Connection c = database().dataSource().getConnection(); Statement s = c.createStatement();
             ResultSet r = s.executeQuery("SELECT request_body, answer_body FROM request_log")) {
            assertThat(r.next()).isTrue();
            assertThat(r.getString("request_body")).isEqualTo(body);
            assertThat(r.getString("answer_body")).isEqualTo(answer);
        }
    }

    @Test
    void should_write_more_rows_than_one_batch_in_their_order() throws Exception {
        // with bodies of 300 characters, more text than one chunk of COPY and more rows than one JDBC batch
        String body = "{\"messages\":[{\"role\":\"user\",\"content\":\"" + "x".repeat(250) + "\"}]}";
        List<RequestLogRow> rows = IntStream.range(0, 1_234).mapToObj(i -> served("req_" + i, body, "a" + i)).toList();

        writer.insert(rows);

        assertThat(requestIds()).hasSize(1_234).startsWith("req_0", "req_1").endsWith("req_1233");
        try (Connection c = database().dataSource().getConnection(); Statement s = c.createStatement();
             ResultSet r = s.executeQuery("SELECT count(*) FROM request_log WHERE request_body = '" + body + "'")) {
            r.next();
            assertThat(r.getInt(1)).isEqualTo(1_234);
        }
    }

    @Test
    void should_write_none_of_the_rows_when_the_database_refuses_one() throws Exception {
        List<RequestLogRow> rows = new ArrayList<>(IntStream.range(0, 700).mapToObj(i -> refused("req_" + i)).toList());
        // request_id is NOT NULL: the 601st row, past the first JDBC batch, is refused
        rows.set(600, refused(null));

        assertThatThrownBy(() -> writer.insert(rows)).isInstanceOf(SQLException.class);

        assertThat(requestIds()).isEmpty();
        writer.insert(List.of(refused("req_after")));
        assertThat(requestIds()).containsExactly("req_after");
    }

    protected static RequestLogRow refused(String requestId) {
        return new RequestLogRow(1_000, requestId, "api", "none", "chat", "no-such-model", null,
                null, null, null, 0, null, 404, "model_not_found", 0, 0, 0, 0.0, 1, null);
    }

    protected static RequestLogRow served(String requestId, String requestBody, String answerBody) {
        return new RequestLogRow(2_000, requestId, "api", "acme", "chat", "gpt-4o-mini",
                "gpt-4o-mini", "primary", "fp-1a2b", "shared", 1, 0, 200, null, 11, 7, 0, 0, 0.0000123, 51, null,
                requestBody, answerBody);
    }

    protected List<String> requestIds() throws SQLException {
        List<String> ids = new ArrayList<>();
        try (Connection c = database().dataSource().getConnection(); Statement s = c.createStatement();
             ResultSet r = s.executeQuery("SELECT request_id FROM request_log ORDER BY id")) {
            while (r.next()) {
                ids.add(r.getString(1));
            }
        }
        return ids;
    }
}
