package dev.keypool.store;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import org.flywaydb.core.Flyway;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;

/** The default store: SQLite in state.dir, its schema made by the migrations once and found again at the next start. */
class DatabaseTest {

    @TempDir
    Path stateDir;

    @Test
    void should_create_the_schema_in_state_dir_and_keep_it_across_starts() throws Exception {
        Path dir = stateDir.resolve("not-yet-there");
        long migrations;
        try (Database database = Database.open(Optional.empty(), dir, 4, 5000)) {
            assertThat(database.kind()).isEqualTo("sqlite");
            migrations = count(database, "SELECT count(*) FROM flyway_schema_history WHERE success = 1");
            execute(database, "INSERT INTO request_log (ts, request_id, source, tenant, attempts, status, prompt_tokens, "
                    + "completion_tokens, cached_tokens, cost_usd, latency_ms) VALUES (1, 'r1', 'api', 'none', 1, 200, 0, 0, 0, 0, 5)");
        }
        assertThat(Files.exists(dir.resolve(Database.SQLITE_FILE))).isTrue();

        try (Database again = Database.open(Optional.empty(), dir, 4, 5000)) {
            assertThat(count(again, "SELECT count(*) FROM request_log")).isEqualTo(1);
            // every migration ran at the first start, none again
            assertThat(migrations).isPositive();
            assertThat(count(again, "SELECT count(*) FROM flyway_schema_history WHERE success = 1")).isEqualTo(migrations);
            // WAL: an operator's sqlite3 reads while the gateway writes
            try (Connection c = again.dataSource().getConnection(); Statement s = c.createStatement();
                 ResultSet r = s.executeQuery("PRAGMA journal_mode")) {
                r.next();
                assertThat(r.getString(1)).isEqualToIgnoringCase("wal");
            }
            // pages of 16 KiB, set before WAL fixed them: fewer pages per row written
            assertThat(count(again, "PRAGMA page_size")).isEqualTo(16_384);
        }
    }

    @Test
    void should_keep_the_page_size_of_a_file_made_before() throws Exception {
        Files.createDirectories(stateDir);
        try (Connection c = java.sql.DriverManager.getConnection("jdbc:sqlite:" + stateDir.resolve(Database.SQLITE_FILE));
             Statement s = c.createStatement()) {
            // SQLite's default page size, as a file made by a build before this one has it
            s.execute("PRAGMA page_size = 4096");
            s.execute("PRAGMA journal_mode = WAL");
        }
        try (Database database = Database.open(Optional.empty(), stateDir, 4, 5000)) {
            assertThat(count(database, "PRAGMA page_size")).isEqualTo(4_096);
            assertThat(count(database, "SELECT count(*) FROM request_log")).isZero();
        }
    }

    @Test
    void should_give_the_rows_of_a_database_made_before_ids_from_their_time() throws Exception {
        Path dir = stateDir.resolve("at-v6");
        Files.createDirectories(dir);
        String url = "jdbc:sqlite:" + dir.resolve(Database.SQLITE_FILE);
        Flyway.configure().dataSource(url, null, null)
                .locations("classpath:db/migration/common", "classpath:db/migration/sqlite")
                .placeholders(Map.of("row_id", "INTEGER PRIMARY KEY", "double", "REAL", "bytes", "BLOB"))
                .target("6").load().migrate();
        try (Connection c = DriverManager.getConnection(url); Statement s = c.createStatement()) {
            // SQLite's own ids, in the order written: two rows in one millisecond, one written late
            s.execute("INSERT INTO request_log (id, ts, request_id, source, tenant, attempts, status, prompt_tokens, "
                    + "completion_tokens, cached_tokens, cost_usd, latency_ms, cache_write_tokens, request_body) VALUES "
                    + "(1, 1764000000100, 'r1', 'api', 'acme', 1, 200, 3, 4, 0, 0.5, 9, 2, '{}'), "
                    + "(2, 1764000000200, 'r2', 'api', 'acme', 1, 200, 3, 4, 0, 0.5, 9, 0, NULL), "
                    + "(3, 1764000000100, 'r3', 'api', 'acme', 1, 500, 3, 4, 0, 0.5, 9, 0, NULL), "
                    + "(4, 1764000000050, 'r4', 'api', 'acme', 1, 200, 3, 4, 0, 0.5, 9, 0, NULL)");
        }

        try (Database database = Database.open(Optional.empty(), dir, 4, 5000)) {
            try (Connection c = database.dataSource().getConnection(); Statement s = c.createStatement();
                 ResultSet r = s.executeQuery("SELECT id, ts, request_id, cache_write_tokens, request_body FROM request_log ORDER BY id")) {
                List<String> rows = new ArrayList<>();
                while (r.next()) {
                    rows.add(r.getLong(1) + " " + r.getLong(2) + " " + r.getString(3) + " " + r.getLong(4) + " " + r.getString(5));
                }
                assertThat(rows).containsExactly(
                        (1764000000050L << 20) + " 1764000000050 r4 0 null",
                        (1764000000100L << 20) + " 1764000000100 r1 2 {}",
                        ((1764000000100L << 20) + 1) + " 1764000000100 r3 0 null",
                        (1764000000200L << 20) + " 1764000000200 r2 0 null");
            }
            assertThat(count(database, "SELECT count(*) FROM sqlite_master WHERE type = 'index' AND tbl_name = 'request_log'"))
                    .isZero();
            // the writer goes on after them
            RequestLogWriter.of(database).insert(List.of(new RequestLogRow(1764000000100L, "r5", "api", "acme", null,
                    null, null, null, null, null, 0, null, 404, "model_not_found", 0, 0, 0, 0.0, 1, null)));
            assertThat(count(database, "SELECT id FROM request_log WHERE request_id = 'r5'"))
                    .isEqualTo((1764000000100L << 20) + 2);
        }
    }

    private static void execute(Database database, String sql) throws Exception {
        try (Connection c = database.dataSource().getConnection(); Statement s = c.createStatement()) {
            s.execute(sql);
        }
    }

    private static long count(Database database, String sql) throws Exception {
        try (Connection c = database.dataSource().getConnection(); Statement s = c.createStatement();
             ResultSet r = s.executeQuery(sql)) {
            r.next();
            return r.getLong(1);
        }
    }
}
