package dev.keypool.store;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;

/** The request log's writer on SQLite in a temporary state.dir (PostgreSQL: PostgresRequestLogWriterTest). */
class RequestLogWriterTest extends RequestLogWriterContract {

    @TempDir
    Path stateDir;

    private Database database;

    @Override
    protected Database database() {
        if (database == null) {
            database = Database.open(Optional.empty(), stateDir, 4, 5000);
        }
        return database;
    }

    @AfterEach
    void close() {
        database.close();
    }

    @Test
    void should_insert_in_jdbc_batches_on_sqlite() {
        assertThat(RequestLogWriter.of(database())).isInstanceOf(JdbcRequestLogWriter.class);
    }

    @Test
    void should_make_each_rows_id_from_its_time() throws Exception {
        RequestLogWriter writer = RequestLogWriter.of(database());
        writer.insert(List.of(at(T, "a"), at(T, "b"), at(T + 1, "c"), at(T, "d")));

        assertThat(idsAndTimes()).containsExactly(
                List.of(T << 20, T), List.of((T << 20) + 1, T), List.of((T << 20) + 2, T), List.of((T + 1) << 20, T + 1));
        assertThat(column("SELECT request_id FROM request_log ORDER BY id")).containsExactly("a", "b", "d", "c");
    }

    @Test
    void should_write_a_row_whose_id_is_taken_after_the_highest_of_its_millisecond() throws Exception {
        RequestLogWriter.of(database()).insert(List.of(at(T, "a"), at(T, "b")));

        // a writer that does not know those rows (the gateway started again, or its clock set back)
        RequestLogWriter.of(database()).insert(List.of(at(T, "c"), at(T + 1, "d"), at(T, "e")));

        assertThat(idsAndTimes()).containsExactly(List.of(T << 20, T), List.of((T << 20) + 1, T),
                List.of((T << 20) + 2, T), List.of((T << 20) + 3, T), List.of((T + 1) << 20, T + 1));
        assertThat(column("SELECT request_id FROM request_log ORDER BY id")).containsExactly("a", "b", "c", "e", "d");
    }

    @Test
    void should_find_rows_by_time_on_the_tables_own_key_without_an_index() throws Exception {
        List<RequestLogRow> rows = new ArrayList<>();
        for (long ms = T - 2; ms <= T + 3; ms++) {
            rows.add(at(ms, "r" + ms + "a"));
            rows.add(at(ms, "r" + ms + "b"));
        }
        RequestLogWriter writer = RequestLogWriter.of(database());
        writer.insert(rows);
        RequestLogTime time = RequestLogTime.of(database());

        // from inclusive, to exclusive, to the millisecond, every row of a millisecond
        RequestLogReader.Page page = new RequestLogReader(database().dataSource(), time).page(new RequestLogReader.Query(
                null, null, null, Instant.ofEpochMilli(T), Instant.ofEpochMilli(T + 2), 100, null));
        assertThat(page.rows()).extracting(r -> r.row().requestId()).containsExactly(
                "r" + (T + 1) + "b", "r" + (T + 1) + "a", "r" + T + "b", "r" + T + "a");
        UsageReader.Usage usage = new UsageReader(database().dataSource(), time).read(new UsageReader.Query(
                Instant.ofEpochMilli(T), Instant.ofEpochMilli(T + 2), UsageReader.GroupBy.TENANT, UsageReader.Interval.DAY));
        assertThat(usage.buckets()).extracting(UsageReader.Bucket::requests).containsExactly(4L);
        assertThat(new UsageTotals(database().dataSource(), time).tenantSpend(Instant.ofEpochMilli(T))
                .get("acme").thisMonth()).isEqualTo(6 * 0.5);

        // SQLite reads a range of the table's rowid: no index on ts is left to write or to read
        assertThat(column("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'request_log'")).isEmpty();
        try (Connection c = database().dataSource().getConnection();
             PreparedStatement plan = c.prepareStatement("EXPLAIN QUERY PLAN SELECT count(*) FROM request_log WHERE "
                     + time.atOrAfter() + " AND " + time.before())) {
            plan.setLong(1, time.bound(T));
            plan.setLong(2, time.bound(T + 2));
            try (ResultSet r = plan.executeQuery()) {
                r.next();
                assertThat(r.getString("detail")).contains("INTEGER PRIMARY KEY (rowid>? AND rowid<?)");
            }
        }

        // the retention: every row before the cutoff, none after
        assertThat(writer.deleteOlderThan(T)).isEqualTo(4);
        assertThat(column("SELECT min(ts) FROM request_log")).containsExactly(String.valueOf(T));
    }

    private static final long T = 1_764_000_000_123L;

    private static RequestLogRow at(long ts, String requestId) {
        return new RequestLogRow(ts, requestId, "api", "acme", "chat", "gpt-4o-mini", "gpt-4o-mini", "primary", "fp-1a2b",
                "shared", 1, 0, 200, null, 11, 7, 0, 0.5, 51, null);
    }

    private List<List<Long>> idsAndTimes() throws SQLException {
        List<List<Long>> rows = new ArrayList<>();
        try (Connection c = database().dataSource().getConnection(); Statement s = c.createStatement();
             ResultSet r = s.executeQuery("SELECT id, ts FROM request_log ORDER BY id")) {
            while (r.next()) {
                rows.add(List.of(r.getLong(1), r.getLong(2)));
            }
        }
        return rows;
    }

    private List<String> column(String sql) throws SQLException {
        List<String> values = new ArrayList<>();
        try (Connection c = database().dataSource().getConnection(); Statement s = c.createStatement();
             ResultSet r = s.executeQuery(sql)) {
            while (r.next()) {
                values.add(r.getString(1));
            }
        }
        return values;
    }
}
