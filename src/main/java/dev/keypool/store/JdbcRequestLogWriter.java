package dev.keypool.store;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Types;
import java.util.Collections;
import java.util.List;

import javax.sql.DataSource;

/**
 * The request log's rows by INSERT (SQLite's writer): one transaction per call, one prepared statement sent in JDBC
 * batches. Typed setters by column position: no map per row, no parameter name looked up per row, and the rows of a
 * call cost SQLite one commit rather than one each. Rows several to a statement were measured no cheaper
 * (docs/decisions.md, "The request log on SQLite: what a row costs").
 */
public final class JdbcRequestLogWriter extends RequestLogWriter {

    static final String INSERT = "INSERT INTO request_log (" + String.join(", ", COLUMNS) + ") VALUES ("
            + String.join(", ", Collections.nCopies(COLUMNS.size(), "?")) + ")";

    /** Rows sent to the database at once: a bounded JDBC batch, however many rows a call brings. */
    private static final int BATCH = 500;

    public JdbcRequestLogWriter(DataSource dataSource) {
        super(dataSource);
    }

    @Override
    void write(Connection connection, List<RequestLogRow> rows) throws SQLException {
        connection.setAutoCommit(false);
        try (PreparedStatement insert = connection.prepareStatement(INSERT)) {
            int pending = 0;
            for (RequestLogRow row : rows) {
                bind(insert, 0, row);
                insert.addBatch();
                if (++pending == BATCH) {
                    insert.executeBatch();
                    pending = 0;
                }
            }
            if (pending > 0) {
                insert.executeBatch();
            }
            connection.commit();
        } catch (SQLException | RuntimeException e) {
            connection.rollback();
            throw e;
        } finally {
            connection.setAutoCommit(true);
        }
    }

    /**
     * The row's columns, in {@link RequestLogWriter#COLUMNS}' order, as the statement's parameters after
     * {@code offset} (0 for a statement of one row; a statement of several rows binds each after the columns of those
     * before it).
     */
    public static void bind(PreparedStatement insert, int offset, RequestLogRow row) throws SQLException {
        insert.setLong(offset + 1, row.ts());
        insert.setString(offset + 2, row.requestId());
        insert.setString(offset + 3, row.source());
        insert.setString(offset + 4, row.tenant());
        insert.setString(offset + 5, row.api());
        insert.setString(offset + 6, row.model());
        insert.setString(offset + 7, row.servedModel());
        insert.setString(offset + 8, row.channel());
        insert.setString(offset + 9, row.keyFingerprint());
        insert.setString(offset + 10, row.pool());
        insert.setInt(offset + 11, row.attempts());
        setInteger(insert, offset + 12, row.fallbackLevel());
        insert.setInt(offset + 13, row.status());
        insert.setString(offset + 14, row.errorCode());
        insert.setLong(offset + 15, row.promptTokens());
        insert.setLong(offset + 16, row.completionTokens());
        insert.setLong(offset + 17, row.cachedTokens());
        insert.setLong(offset + 18, row.cacheWriteTokens());
        insert.setDouble(offset + 19, row.costUsd());
        insert.setLong(offset + 20, row.latencyMs());
        setLong(insert, offset + 21, row.ttfbMs());
        insert.setString(offset + 22, row.requestBody());
        insert.setString(offset + 23, row.answerBody());
    }

    private static void setInteger(PreparedStatement insert, int index, Integer value) throws SQLException {
        if (value == null) {
            insert.setNull(index, Types.INTEGER);
        } else {
            insert.setInt(index, value);
        }
    }

    private static void setLong(PreparedStatement insert, int index, Long value) throws SQLException {
        if (value == null) {
            insert.setNull(index, Types.BIGINT);
        } else {
            insert.setLong(index, value);
        }
    }
}
