package dev.keypool.store;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

import javax.sql.DataSource;

import dev.keypool.admin.TenantRecord;
import dev.keypool.admin.TenantStore;

/**
 * The tenants of the control plane's database (tables {@code tenants} and {@code tenants_revision}, Flyway V2), the same
 * SQL on SQLite and PostgreSQL. A write is conditional on the row's version and moves the revision in the same
 * transaction, so that two instances writing one tenant at once cannot both win, and a poller that saw the revision
 * also sees the rows written before it.
 */
public final class JdbcTenantStore implements TenantStore {

    private static final String COLUMNS = "name, origin, settings, token_hash, previous_hash, previous_until, deleted, "
            + "created_at, updated_at, version";

    private final DataSource dataSource;

    public JdbcTenantStore(DataSource dataSource) {
        this.dataSource = dataSource;
    }

    @Override
    public List<TenantRecord> all() {
        try (Connection c = dataSource.getConnection();
             PreparedStatement s = c.prepareStatement("SELECT " + COLUMNS + " FROM tenants ORDER BY created_at, name");
             ResultSet r = s.executeQuery()) {
            List<TenantRecord> rows = new ArrayList<>();
            while (r.next()) {
                rows.add(new TenantRecord(r.getString("name"), TenantRecord.Origin.stored(r.getString("origin")),
                        r.getString("settings"), r.getString("token_hash"), r.getString("previous_hash"),
                        instant(r, "previous_until"), r.getInt("deleted") != 0, instant(r, "created_at"),
                        instant(r, "updated_at"), r.getLong("version")));
            }
            return rows;
        } catch (SQLException e) {
            throw failed("read", e);
        }
    }

    @Override
    public long revision() {
        try (Connection c = dataSource.getConnection();
             PreparedStatement s = c.prepareStatement("SELECT revision FROM tenants_revision WHERE id = 1");
             ResultSet r = s.executeQuery()) {
            return r.next() ? r.getLong(1) : 0;
        } catch (SQLException e) {
            throw failed("read", e);
        }
    }

    @Override
    public boolean put(TenantRecord record, long expectedVersion) {
        try (Connection c = dataSource.getConnection()) {
            c.setAutoCommit(false);
            try {
                // the revision first: its row lock makes the tenant writes of all instances one after the other
                try (PreparedStatement s = c.prepareStatement(
                        "UPDATE tenants_revision SET revision = revision + 1 WHERE id = 1")) {
                    s.executeUpdate();
                }
                boolean written = expectedVersion == 0 ? insert(c, record) : update(c, record, expectedVersion);
                if (written) {
                    c.commit();
                } else {
                    c.rollback();
                }
                return written;
            } catch (SQLException | RuntimeException e) {
                c.rollback();
                throw e;
            } finally {
                c.setAutoCommit(true);
            }
        } catch (SQLException e) {
            throw failed("write", e);
        }
    }

    private static boolean insert(Connection c, TenantRecord record) throws SQLException {
        try (PreparedStatement s = c.prepareStatement("SELECT 1 FROM tenants WHERE name = ?")) {
            s.setString(1, record.name());
            try (ResultSet r = s.executeQuery()) {
                if (r.next()) {
                    return false;
                }
            }
        }
        try (PreparedStatement s = c.prepareStatement("INSERT INTO tenants (" + COLUMNS
                + ") VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)")) {
            s.setString(1, record.name());
            bind(s, record, 2);
            s.setLong(10, 1);
            return s.executeUpdate() == 1;
        }
    }

    private static boolean update(Connection c, TenantRecord record, long expectedVersion) throws SQLException {
        try (PreparedStatement s = c.prepareStatement("UPDATE tenants SET origin = ?, settings = ?, token_hash = ?, "
                + "previous_hash = ?, previous_until = ?, deleted = ?, created_at = ?, updated_at = ?, "
                + "version = version + 1 WHERE name = ? AND version = ?")) {
            bind(s, record, 1);
            s.setString(9, record.name());
            s.setLong(10, expectedVersion);
            return s.executeUpdate() == 1;
        }
    }

    /** origin … updated_at, from parameter {@code first} on. */
    private static void bind(PreparedStatement s, TenantRecord record, int first) throws SQLException {
        s.setString(first, record.origin().storedName());
        s.setString(first + 1, record.settings());
        s.setString(first + 2, record.tokenHash());
        s.setString(first + 3, record.previousHash());
        if (record.previousUntil() == null) {
            s.setNull(first + 4, Types.BIGINT);
        } else {
            s.setLong(first + 4, record.previousUntil().toEpochMilli());
        }
        s.setInt(first + 5, record.deleted() ? 1 : 0);
        s.setLong(first + 6, record.createdAt().toEpochMilli());
        s.setLong(first + 7, record.updatedAt().toEpochMilli());
    }

    private static Instant instant(ResultSet r, String column) throws SQLException {
        long millis = r.getLong(column);
        return r.wasNull() ? null : Instant.ofEpochMilli(millis);
    }

    /** The exception's class only: a driver's message may quote the URL, with its password. */
    private static IllegalStateException failed(String what, SQLException e) {
        return new IllegalStateException("Tenants could not be " + what + " in the database: "
                + e.getClass().getSimpleName() + " (SQLState " + e.getSQLState() + ")");
    }
}
