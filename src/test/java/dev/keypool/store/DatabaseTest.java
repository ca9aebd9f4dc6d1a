package dev.keypool.store;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.Optional;

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
