package dev.keypool.store;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.SQLTransientConnectionException;
import java.util.List;

import javax.sql.DataSource;

import com.zaxxer.hikari.HikariDataSource;

/**
 * Writes the request log's rows, a batch at a time, in the way the database takes them cheapest, and deletes those past
 * the retention. The frame is the same for every database (nothing to do for no rows, one pooled connection per batch,
 * given back whatever happens); each database's writer is its dialect, {@link #write}, with the way its rows are found
 * by time ({@link RequestLogTime}).
 */
public abstract class RequestLogWriter {

    /** The request_log columns every writer fills, in the order of {@link RequestLogRow}'s components. */
    public static final List<String> COLUMNS = List.of("ts", "request_id", "source", "tenant", "api", "model",
            "served_model", "channel", "key_fingerprint", "pool", "attempts", "fallback_level", "status", "error_code",
            "prompt_tokens", "completion_tokens", "cached_tokens", "cache_write_tokens", "cost_usd", "latency_ms",
            "ttfb_ms", "request_body", "answer_body");

    private final DataSource dataSource;
    private final RequestLogTime time;

    protected RequestLogWriter(DataSource dataSource, RequestLogTime time) {
        this.dataSource = dataSource;
        this.time = time;
    }

    /** PostgreSQL's COPY, else batched INSERTs. */
    public static RequestLogWriter of(Database database) {
        return database.kind().equals(Database.POSTGRESQL)
                ? new PostgresRequestLogWriter(database.dataSource())
                : new JdbcRequestLogWriter(database.dataSource());
    }

    /** Writes every row, or none of them when the database refuses one (the exception says why). */
    public final void insert(List<RequestLogRow> rows) throws SQLException {
        if (rows.isEmpty()) {
            return;
        }
        try (Connection connection = connection()) {
            write(connection, rows);
        } catch (SQLException e) {
            if (!connectionBroken(e)) {
                throw e;
            }
            // a pooled connection the server dropped (it restarted, or a proxy cut it): HikariCP hands out a connection
            // used in the last 500 ms without checking it, and the pool's others are likely of the same server's life;
            // they go, and the batch, all or nothing, goes again on a new one, so that the rows offered after the server
            // came back are written
            evictPooledConnections();
            try (Connection connection = connection()) {
                write(connection, rows);
            }
        }
    }

    private void evictPooledConnections() throws SQLException {
        if (dataSource.isWrapperFor(HikariDataSource.class)) {
            dataSource.unwrap(HikariDataSource.class).getHikariPoolMXBean().softEvictConnections();
        }
    }

    /** SQLSTATE class 08, connection exception: the connection failed, not the statement. */
    private static boolean connectionBroken(SQLException e) {
        for (SQLException next = e; next != null; next = next.getNextException()) {
            if (next.getSQLState() != null && next.getSQLState().startsWith("08")) {
                return true;
            }
        }
        return false;
    }

    /**
     * A pooled connection, waited for a second time when the pool's wait ran out. While the server is away HikariCP
     * tries it again after pauses that double up to 5 s (its PoolEntryCreator; not configurable), and a caller waits for
     * a connection as long as the longest pause (5 s, {@link Database}): a batch that begins as such a pause begins
     * times out though the server is back before the pause ends, and its rows, offered after the server came back, would
     * be lost. The second wait spans the pause and the attempt after it ({@code PostgresRequestLogReconnectTest}); only
     * the writer's beat waits, never a request.
     */
    private Connection connection() throws SQLException {
        try {
            return dataSource.getConnection();
        } catch (SQLTransientConnectionException poolWaitRanOut) {
            return dataSource.getConnection();
        }
    }

    /** The retention: deletes every row older than {@code cutoffMs} (epoch ms); returns how many. */
    public final int deleteOlderThan(long cutoffMs) throws SQLException {
        try (Connection connection = dataSource.getConnection();
             PreparedStatement delete = connection.prepareStatement("DELETE FROM request_log WHERE " + time.before())) {
            delete.setLong(1, time.bound(cutoffMs));
            return delete.executeUpdate();
        }
    }

    /** The dialect: every row of a batch (never empty) on {@code connection}, all of them or none. */
    abstract void write(Connection connection, List<RequestLogRow> rows) throws SQLException;
}
