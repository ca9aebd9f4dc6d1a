package dev.keypool.testing;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;


/** Reads the request log's rows with a JDBC connection of its own, as an operator's sqlite3 or psql would. */
public final class RequestLogRows {

    private final String jdbcUrl;
    private final Properties credentials;

    public RequestLogRows(String jdbcUrl, Properties credentials) {
        this.jdbcUrl = jdbcUrl;
        this.credentials = credentials;
    }

    /** The SQLite file of a gateway's state.dir. */
    public static RequestLogRows sqlite(String stateDir) {
        return new RequestLogRows("jdbc:sqlite:" + java.nio.file.Path.of(stateDir).resolve("keypool.db"), new Properties());
    }

    /** Every row in the order written, column names as in the table. */
    public List<Map<String, Object>> all() {
        List<Map<String, Object>> rows = new ArrayList<>();
        try (Connection c = DriverManager.getConnection(jdbcUrl, credentials);
             Statement s = c.createStatement();
             ResultSet r = s.executeQuery("SELECT * FROM request_log ORDER BY id")) {
            while (r.next()) {
                Map<String, Object> row = new LinkedHashMap<>();
                for (int i = 1; i <= r.getMetaData().getColumnCount(); i++) {
                    row.put(r.getMetaData().getColumnName(i), r.getObject(i));
                }
                rows.add(row);
            }
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
        return rows;
    }

    /** The rows, once there are at least {@code count}. */
    public List<Map<String, Object>> await(int count) {
        return org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(15)).pollInterval(Duration.ofMillis(50))
                .until(this::all, rows -> rows.size() >= count);
    }

    /**
     * The rows written after the first {@code already}, once there are at least {@code count} of them: a test of a
     * gateway that earlier tests used too reads its own rows only.
     */
    public List<Map<String, Object>> awaitSince(int already, int count) {
        List<Map<String, Object>> rows = await(already + count);
        return rows.subList(already, rows.size());
    }

    public void execute(String sql) {
        try (Connection c = DriverManager.getConnection(jdbcUrl, credentials); Statement s = c.createStatement()) {
            s.execute(sql);
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    public Connection connect() throws SQLException {
        return DriverManager.getConnection(jdbcUrl, credentials);
    }
}
