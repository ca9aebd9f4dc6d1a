package dev.keypool.store;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.Optional;

import org.flywaydb.core.Flyway;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A SQLite database migrated when V1 and V2 were one copy per database (test resources
 * db/layout-before-common/sqlite, the files as they were) starts on the common migrations with its rows, and an
 * applied migration whose checksum is not a former copy's still stops the start.
 */
class DatabaseFormerLayoutTest {

    @TempDir
    Path stateDir;

    @Test
    void should_start_on_a_database_migrated_with_the_former_per_database_files() throws Exception {
        Flyway former = formerLayout();
        former.migrate();
        execute("INSERT INTO request_log (ts, request_id, source, tenant, attempts, status, prompt_tokens, "
                + "completion_tokens, cached_tokens, cost_usd, latency_ms) VALUES (1, 'r1', 'api', 'none', 1, 200, 0, 0, 0, 0, 5)");

        long everyMigration;
        try (Database fresh = Database.open(Optional.empty(), stateDir.resolve("fresh"), 4, 5000)) {
            everyMigration = count(fresh, "SELECT count(*) FROM flyway_schema_history WHERE success = 1");
        }
        try (Database database = Database.open(Optional.empty(), stateDir, 4, 5000)) {
            assertThat(count(database, "SELECT count(*) FROM request_log")).isEqualTo(1);
            // the former migrations kept, the later ones applied: as many as a new database has
            assertThat(count(database, "SELECT count(*) FROM flyway_schema_history WHERE success = 1"))
                    .isEqualTo(everyMigration);
        }
        // and again, now that the history holds the common files' checksums
        try (Database again = Database.open(Optional.empty(), stateDir, 4, 5000)) {
            assertThat(count(again, "SELECT count(*) FROM request_log")).isEqualTo(1);
        }
    }

    @Test
    void should_refuse_a_database_whose_applied_migration_was_edited() throws Exception {
        formerLayout().migrate();
        execute("UPDATE flyway_schema_history SET checksum = 12345 WHERE version = '1'");

        assertThatThrownBy(() -> Database.open(Optional.empty(), stateDir, 4, 5000).close())
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("Cannot prepare the sqlite database");
    }

    private Flyway formerLayout() {
        return Flyway.configure().dataSource(url(), null, null)
                .locations("classpath:db/layout-before-common/sqlite").load();
    }

    private String url() {
        return "jdbc:sqlite:" + stateDir.resolve(Database.SQLITE_FILE).toAbsolutePath();
    }

    private void execute(String sql) throws Exception {
        try (Connection c = java.sql.DriverManager.getConnection(url()); Statement s = c.createStatement()) {
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
