package dev.keypool.store;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

import javax.sql.DataSource;

import dev.keypool.admin.ProviderKeyStore;

/**
 * The table {@code provider_keys} (migration V4), with the same SQL on SQLite and PostgreSQL. A second insert of a
 * channel's fingerprint is told apart from a failure by reading the row first, in the same transaction, rather than
 * by each driver's own code for a violated primary key.
 */
public final class JdbcProviderKeyStore implements ProviderKeyStore {

    private final DataSource dataSource;

    public JdbcProviderKeyStore(DataSource dataSource) {
        this.dataSource = dataSource;
    }

    @Override
    public boolean insert(Row row) {
        try (Connection connection = dataSource.getConnection()) {
            connection.setAutoCommit(false);
            try {
                if (exists(connection, row.channel(), row.fingerprint())) {
                    connection.rollback();
                    return false;
                }
                try (PreparedStatement insert = connection.prepareStatement("INSERT INTO provider_keys "
                        + "(channel, fingerprint, label, iv, secret, created_at) VALUES (?, ?, ?, ?, ?, ?)")) {
                    insert.setString(1, row.channel());
                    insert.setString(2, row.fingerprint());
                    insert.setString(3, row.label());
                    insert.setBytes(4, row.iv());
                    insert.setBytes(5, row.ciphertext());
                    insert.setLong(6, row.created().toEpochMilli());
                    insert.executeUpdate();
                }
                connection.commit();
                return true;
            } catch (SQLException e) {
                connection.rollback();
                throw e;
            } finally {
                connection.setAutoCommit(true);
            }
        } catch (SQLException e) {
            throw unavailable("written", e);
        }
    }

    @Override
    public boolean delete(String channel, String fingerprint) {
        try (Connection connection = dataSource.getConnection();
             PreparedStatement delete = connection.prepareStatement(
                     "DELETE FROM provider_keys WHERE channel = ? AND fingerprint = ?")) {
            delete.setString(1, channel);
            delete.setString(2, fingerprint);
            return delete.executeUpdate() > 0;
        } catch (SQLException e) {
            throw unavailable("written", e);
        }
    }

    @Override
    public List<Row> all() {
        try (Connection connection = dataSource.getConnection();
             PreparedStatement select = connection.prepareStatement("SELECT channel, fingerprint, label, iv, secret, "
                     + "created_at FROM provider_keys ORDER BY created_at, channel, fingerprint");
             ResultSet rows = select.executeQuery()) {
            List<Row> all = new ArrayList<>();
            while (rows.next()) {
                all.add(new Row(rows.getString(1), rows.getString(2), rows.getString(3), rows.getBytes(4),
                        rows.getBytes(5), Instant.ofEpochMilli(rows.getLong(6))));
            }
            return all;
        } catch (SQLException e) {
            throw unavailable("read", e);
        }
    }

    private static boolean exists(Connection connection, String channel, String fingerprint) throws SQLException {
        try (PreparedStatement select = connection.prepareStatement(
                "SELECT 1 FROM provider_keys WHERE channel = ? AND fingerprint = ?")) {
            select.setString(1, channel);
            select.setString(2, fingerprint);
            try (ResultSet found = select.executeQuery()) {
                return found.next();
            }
        }
    }

    /**
     * The exception's class and SQL state only, and no cause to print: a driver's message may quote the URL with its
     * password, or a statement's values.
     */
    private static ProviderKeyStore.UnavailableException unavailable(String what, SQLException e) {
        return new ProviderKeyStore.UnavailableException("The provider key store could not be " + what + " ("
                + e.getClass().getSimpleName() + ", SQL state " + e.getSQLState() + ")", null);
    }
}
