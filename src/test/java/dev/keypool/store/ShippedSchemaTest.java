package dev.keypool.store;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.Statement;
import java.util.Arrays;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;

import org.flywaydb.core.Flyway;
import org.flywaydb.core.api.MigrationInfo;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The migrations the build ships, as {@link ShippedSchema} names them, are those Flyway finds in db/migration; a
 * database whose schema is up to date opens without Flyway, one that is not is migrated by it.
 */
class ShippedSchemaTest {

    @TempDir
    Path stateDir;

    @Test
    void should_name_the_versions_and_checksums_flyway_resolves_from_the_files() {
        for (String kind : new String[] {"sqlite", Database.POSTGRESQL}) {
            Flyway flyway = Flyway.configure()
                    .dataSource("jdbc:sqlite:" + stateDir.resolve(kind + ".db").toAbsolutePath(), null, null)
                    .locations("classpath:db/migration/common", "classpath:db/migration/" + kind)
                    .load();
            Map<String, Integer> resolved = Arrays.stream(flyway.info().all())
                    .collect(Collectors.toMap(m -> m.getVersion().getVersion(), MigrationInfo::getChecksum));

            assertThat(ShippedSchema.migrations(kind)).as("db/migration for %s (update ShippedSchema)", kind)
                    .isEqualTo(resolved);
        }
    }

    @Test
    void should_open_an_up_to_date_database_without_flyway_and_a_new_or_behind_one_with_it() throws Exception {
        // a new file left to Flyway, as where the jar holds no migrated store (NewSqliteFile)
        try (Database fresh = Database.open(Optional.empty(), stateDir, 4, 5000, null)) {
            assertThat(fresh.migrated()).isTrue();
            assertThat(ShippedSchema.applied(fresh.dataSource(), fresh.kind())).isTrue();
        }
        try (Database again = Database.open(Optional.empty(), stateDir, 4, 5000)) {
            assertThat(again.migrated()).isFalse();
            // the last migration undone, as on a database of the build before it
            execute(again, "CREATE INDEX request_log_ts ON request_log (ts)");
            execute(again, "DELETE FROM " + ShippedSchema.HISTORY + " WHERE version = '7'");
            assertThat(ShippedSchema.applied(again.dataSource(), again.kind())).isFalse();
        }
        try (Database behind = Database.open(Optional.empty(), stateDir, 4, 5000)) {
            assertThat(behind.migrated()).isTrue();
            assertThat(ShippedSchema.applied(behind.dataSource(), behind.kind())).isTrue();
        }
    }

    private static void execute(Database database, String sql) throws Exception {
        try (Connection c = database.dataSource().getConnection(); Statement s = c.createStatement()) {
            s.execute(sql);
        }
    }
}
