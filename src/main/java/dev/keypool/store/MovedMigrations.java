package dev.keypool.store;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

import javax.sql.DataSource;

import org.flywaydb.core.Flyway;
import org.flywaydb.core.api.MigrationInfo;

/**
 * The migrations that were written once per database and are now one file in {@code db/migration/common}: V1, whose
 * two vendor types became placeholders, and V2, whose comment names both databases' tools. A database migrated
 * before recorded the checksum of its own copy, which the common file does not have, and Flyway would refuse to
 * start on it. Before Flyway validates, a recorded checksum that is exactly one of those copies' is set to the common
 * file's; any other difference (an edited migration, an unknown checksum) still stops the start, as Flyway's
 * validation means it to.
 */
final class MovedMigrations {

    /** Version → the checksums of its former copies (Flyway's CRC-32 of db/migration/sqlite and …/postgresql). */
    private static final Map<String, Set<Integer>> FORMER_CHECKSUMS = Map.of(
            "1", Set.of(254858584, -701625546),
            "2", Set.of(1738168364, -1513152170));

    private MovedMigrations() {
    }

    /** Realigns the recorded checksums of moved migrations; returns how many rows it changed. */
    static int realign(Flyway flyway, DataSource dataSource) throws SQLException {
        String table = flyway.getConfiguration().getTable();
        // Flyway's info() resolves and reads every migration, as costly as the migration of a fresh database itself:
        // asked only for a history that holds a former copy's checksum, which a new database and one migrated since
        // never do
        if (!holdsFormerChecksum(dataSource, table)) {
            return 0;
        }
        int realigned = 0;
        for (MigrationInfo migration : flyway.info().applied()) {
            Integer recorded = migration.getAppliedChecksum();
            Integer resolved = migration.getResolvedChecksum();
            if (migration.getVersion() == null || resolved == null || Objects.equals(recorded, resolved)
                    || !FORMER_CHECKSUMS.getOrDefault(migration.getVersion().getVersion(), Set.of()).contains(recorded)) {
                continue;
            }
            try (Connection connection = dataSource.getConnection();
                 PreparedStatement update = connection.prepareStatement(
                         "UPDATE " + table + " SET checksum = ? WHERE version = ? AND checksum = ?")) {
                update.setInt(1, resolved);
                update.setString(2, migration.getVersion().getVersion());
                update.setInt(3, recorded);
                realigned += update.executeUpdate();
            }
        }
        return realigned;
    }

    private static boolean holdsFormerChecksum(DataSource dataSource, String table) throws SQLException {
        try (Connection connection = dataSource.getConnection()) {
            try (ResultSet tables = connection.getMetaData().getTables(null, connection.getSchema(), table, null)) {
                if (!tables.next()) {
                    return false;
                }
            }
            try (PreparedStatement select = connection.prepareStatement("SELECT version, checksum FROM " + table);
                 ResultSet rows = select.executeQuery()) {
                while (rows.next()) {
                    int checksum = rows.getInt(2);
                    if (!rows.wasNull() && FORMER_CHECKSUMS.getOrDefault(rows.getString(1), Set.of()).contains(checksum)) {
                        return true;
                    }
                }
            }
        }
        return false;
    }
}
