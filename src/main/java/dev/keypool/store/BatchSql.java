package dev.keypool.store;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Arrays;
import java.util.stream.Collectors;

import dev.keypool.batch.BatchStatus;

/** What the three batch tables' stores share: the owner column, the statuses that are over, the bytes a tenant keeps. */
final class BatchSql {

    /** The statuses of a batch that is over, as an SQL list: {@code ('completed', …)}. */
    static final String OVER = Arrays.stream(BatchStatus.values()).filter(BatchStatus::terminal)
            .map(s -> "'" + s.apiName() + "'").collect(Collectors.joining(", ", "(", ")"));

    private BatchSql() {
    }

    /** The owner column: the tenant, '' without tenants (a key, unlike null). */
    static String owner(String tenant) {
        return tenant == null ? "" : tenant;
    }

    static String tenant(String owner) {
        return owner.isEmpty() ? null : owner;
    }

    /** The bytes {@code owner} keeps in files and tasks, on every instance together. */
    static long storedBytes(Connection c, String owner) throws SQLException {
        try (PreparedStatement s = c.prepareStatement("SELECT (SELECT COALESCE(SUM(bytes), 0) FROM batch_files WHERE owner = ?)"
                + " + (SELECT COALESCE(SUM(bytes), 0) FROM batch_tasks WHERE owner = ?)")) {
            s.setString(1, owner(owner));
            s.setString(2, owner(owner));
            try (ResultSet r = s.executeQuery()) {
                r.next();
                return r.getLong(1);
            }
        }
    }

    /** The exception's class and SQL state only: a driver's message may quote the URL with its password, or values. */
    static IllegalStateException failed(String what, SQLException e) {
        return new IllegalStateException(what + " failed in the database: " + e.getClass().getSimpleName()
                + " (SQLState " + e.getSQLState() + ")");
    }
}
