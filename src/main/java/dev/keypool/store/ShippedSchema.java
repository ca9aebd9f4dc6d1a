package dev.keypool.store;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.HashMap;
import java.util.Map;

import javax.sql.DataSource;

/**
 * The migrations this build ships under {@code db/migration}, by version, each with the checksum Flyway records for it:
 * whether a database's history already holds exactly these, all applied, is one query, where Flyway itself loads its
 * plugins, lists and reads every migration file and validates them before it finds there is nothing to do. Anything
 * else (a new database, a pending, failed or edited
 * migration, a history from a former layout) is left to Flyway, which migrates, refuses, or realigns
 * ({@link MovedMigrations}) as before. ShippedSchemaTest checks these against what Flyway resolves from the files.
 */
final class ShippedSchema {

    /** Flyway's own table (its default name). */
    static final String HISTORY = "flyway_schema_history";

    private static final Map<String, Integer> COMMON = Map.of(
            "1", 380637306,
            "2", 790399412,
            "3", 856477210,
            "5", 1275306900);
    private static final Map<String, Integer> SQLITE = Map.of("4", 793627160, "6", 1895643229, "7", -1419965772);
    private static final Map<String, Integer> POSTGRESQL = Map.of("4", -547061480);

    private ShippedSchema() {
    }

    /** Version → checksum of the migrations of {@code kind} ({@code sqlite} or {@code postgresql}). */
    static Map<String, Integer> migrations(String kind) {
        Map<String, Integer> all = new HashMap<>(COMMON);
        all.putAll(Database.POSTGRESQL.equals(kind) ? POSTGRESQL : SQLITE);
        return all;
    }

    /** Whether the database's history holds every shipped migration of {@code kind}, applied, and nothing else. */
    static boolean applied(DataSource dataSource, String kind) {
        Map<String, Integer> recorded = new HashMap<>();
        try (Connection connection = dataSource.getConnection();
             PreparedStatement select = connection.prepareStatement(
                     "SELECT version, checksum, success FROM " + HISTORY);
             ResultSet rows = select.executeQuery()) {
            while (rows.next()) {
                String version = rows.getString(1);
                int checksum = rows.getInt(2);
                boolean noChecksum = rows.wasNull();
                if (version == null && noChecksum) {
                    // Flyway's markers (the schema it created), not migrations
                    continue;
                }
                if (!rows.getBoolean(3) || version == null || noChecksum) {
                    return false;
                }
                recorded.put(version, checksum);
            }
        } catch (SQLException e) {
            // no history yet (a new database), or one this query cannot read: Flyway decides
            return false;
        }
        return recorded.equals(migrations(kind));
    }
}
