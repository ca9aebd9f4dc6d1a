package dev.keypool.store;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Types;
import java.util.Collections;
import java.util.List;

import javax.sql.DataSource;

/**
 * The request log's rows by INSERT (SQLite's writer): one transaction per batch, the rows sent {@value #ROWS} to a
 * statement ({@code INSERT ... VALUES (...), (...), ...}), the last few in one statement of their own. Typed setters by
 * column position: no map per row, no parameter name looked up per row; the rows of a batch cost SQLite one commit, and
 * each statement's start (its cursors on the table and its two indexes, the step and reset through JNI) is paid once
 * for {@value #ROWS} rows rather than for each (docs/decisions.md, "The request log on SQLite: multi-row INSERTs").
 */
public final class JdbcRequestLogWriter extends RequestLogWriter {

    /** Rows one statement inserts: 736 parameters, far below SQLite's limit of 32,766. */
    static final int ROWS = 32;
    private static final int WIDTH = COLUMNS.size();
    /** {@code INSERTS[n]} inserts n rows, 1 to {@link #ROWS}. */
    private static final String[] INSERTS = new String[ROWS + 1];

    static {
        String values = "(" + String.join(", ", Collections.nCopies(WIDTH, "?")) + ")";
        for (int n = 1; n <= ROWS; n++) {
            INSERTS[n] = "INSERT INTO request_log (" + String.join(", ", COLUMNS) + ") VALUES "
                    + String.join(", ", Collections.nCopies(n, values));
        }
    }

    public JdbcRequestLogWriter(DataSource dataSource) {
        super(dataSource);
    }

    @Override
    void write(Connection connection, List<RequestLogRow> rows) throws SQLException {
        connection.setAutoCommit(false);
        try {
            int whole = rows.size() - rows.size() % ROWS;
            if (whole > 0) {
                insert(connection, rows.subList(0, whole));
            }
            if (whole < rows.size()) {
                insert(connection, rows.subList(whole, rows.size()));
            }
            connection.commit();
        } catch (SQLException | RuntimeException e) {
            connection.rollback();
            throw e;
        } finally {
            connection.setAutoCommit(true);
        }
    }

    /** {@code rows}, {@link #ROWS} to a statement, or all in one when fewer. */
    private static void insert(Connection connection, List<RequestLogRow> rows) throws SQLException {
        int perStatement = Math.min(rows.size(), ROWS);
        try (PreparedStatement insert = connection.prepareStatement(INSERTS[perStatement])) {
            for (int start = 0; start < rows.size(); start += perStatement) {
                for (int k = 0; k < perStatement; k++) {
                    bind(insert, k * WIDTH, rows.get(start + k));
                }
                insert.executeUpdate();
            }
        }
    }

    /** The row's columns as the parameters after {@code offset}. */
    private static void bind(PreparedStatement insert, int offset, RequestLogRow row) throws SQLException {
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
