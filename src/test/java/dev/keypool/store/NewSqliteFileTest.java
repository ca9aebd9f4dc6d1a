package dev.keypool.store;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.Optional;

import org.flywaydb.core.Flyway;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A first start on a new state.dir copies the store the build migrated instead of running Flyway: the copy is what
 * Flyway makes of this build's migrations, and a store there already is never replaced.
 */
class NewSqliteFileTest {

    @TempDir
    Path stateDir;

    @Test
    void should_open_a_new_store_as_the_build_migrated_one_without_flyway() throws Exception {
        try (Database database = Database.open(Optional.empty(), stateDir, 4, 5000)) {
            assertThat(database.migrated()).as("Flyway asked to migrate a new store").isFalse();
            assertThat(ShippedSchema.applied(database.dataSource(), database.kind())).isTrue();
            Flyway flyway = Flyway.configure()
                    .dataSource(database.dataSource())
                    .locations("classpath:db/migration/common", "classpath:db/migration/sqlite")
                    .load();
            assertThat(flyway.info().pending()).isEmpty();
            assertThat(flyway.validateWithResult().validationSuccessful).isTrue();
            assertThat(text(database, "PRAGMA journal_mode")).isEqualToIgnoringCase("wal");
            assertThat(text(database, "PRAGMA page_size")).isEqualTo(String.valueOf(Database.PAGE_SIZE));
            assertThat(text(database, "SELECT count(*) FROM request_log")).isEqualTo("0");
        }
        try (var left = Files.list(stateDir)) {
            assertThat(left.map(p -> p.getFileName().toString())).noneMatch(name -> name.endsWith(".new"));
        }
        // the permissions of any new file (an operator's sqlite3 reads it as SQLite's own file), not a temporary file's
        assertThat(Files.getPosixFilePermissions(stateDir.resolve(Database.SQLITE_FILE)))
                .isEqualTo(Files.getPosixFilePermissions(Files.createFile(stateDir.resolve("any-new-file"))));
    }

    @Test
    void should_keep_a_store_there_already() throws Exception {
        Path file = stateDir.resolve(Database.SQLITE_FILE);
        Files.writeString(file, "not replaced");

        assertThat(NewSqliteFile.copyTo(file, NewSqliteFile.RESOURCE)).isFalse();
        assertThat(Files.readString(file)).isEqualTo("not replaced");
    }

    @Test
    void should_leave_a_new_store_to_flyway_where_the_jar_has_no_migrated_one() throws Exception {
        assertThat(NewSqliteFile.copyTo(stateDir.resolve(Database.SQLITE_FILE), "db/new/absent.db")).isFalse();
        try (Database database = Database.open(Optional.empty(), stateDir, 4, 5000, "db/new/absent.db")) {
            assertThat(database.migrated()).isTrue();
            assertThat(ShippedSchema.applied(database.dataSource(), database.kind())).isTrue();
        }
    }

    private static String text(Database database, String sql) throws Exception {
        try (Connection c = database.dataSource().getConnection(); Statement s = c.createStatement();
             ResultSet r = s.executeQuery(sql)) {
            r.next();
            return r.getString(1);
        }
    }
}
