package dev.keypool.store;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import javax.sql.DataSource;

/**
 * The request log's rows by INSERT (SQLite's writer): one transaction per call, prepared statements sent in JDBC
 * batches, typed setters by position. What a row costs the writer's thread is mostly sqlite-jdbc's binding (a JNI call
 * per value) and SQLite's insert into the table's b-tree (docs/decisions.md, "The request log on SQLite: what a row
 * costs"), so:
 * <ul>
 *   <li>each row's id is made here from its time ({@link TimeIds}): the table's rowid is in time order and no index on
 *   {@code ts} takes a second b-tree insert per row;</li>
 *   <li>a column that is null in a row is written as {@code NULL} in the statement's text, not bound: rows go to one
 *   statement per set of null columns (a served plain request has no error code, no time to first byte and no
 *   bodies: four values of 23 not bound).</li>
 * </ul>
 * An id found taken (a millisecond this writer no longer keeps that already has rows: see {@link TimeIds}) does not
 * fail the batch: the row is written again after the highest id of its millisecond.
 */
public final class JdbcRequestLogWriter extends RequestLogWriter {

    /** Rows sent to the database at once per statement: sqlite-jdbc keeps a batch's values in one array, reused. */
    private static final int BATCH = 64;

    /** The columns that may be null, as bits of a row's shape: their places in {@link RequestLogWriter#COLUMNS}. */
    private static final int API = nullable("api");
    private static final int MODEL = nullable("model");
    private static final int SERVED_MODEL = nullable("served_model");
    private static final int CHANNEL = nullable("channel");
    private static final int KEY = nullable("key_fingerprint");
    private static final int POOL = nullable("pool");
    private static final int FALLBACK_LEVEL = nullable("fallback_level");
    private static final int ERROR_CODE = nullable("error_code");
    private static final int TTFB = nullable("ttfb_ms");
    private static final int REQUEST_BODY = nullable("request_body");
    private static final int ANSWER_BODY = nullable("answer_body");

    private static final String HIGHEST_ID = "SELECT max(id) FROM request_log WHERE id >= ? AND id < ?";

    private final TimeIds ids = new TimeIds();

    public JdbcRequestLogWriter(DataSource dataSource) {
        super(dataSource, RequestLogTime.BY_ID);
    }

    @Override
    void write(Connection connection, List<RequestLogRow> rows) throws SQLException {
        // one writer at a time, as SQLite takes one: the ids it gives are then this writer's to keep
        synchronized (ids) {
            connection.setAutoCommit(false);
            Map<Integer, Shape> shapes = new HashMap<>();
            try {
                List<RequestLogRow> taken = new ArrayList<>(0);
                for (RequestLogRow row : rows) {
                    int nulls = nulls(row);
                    Shape shape = shapes.get(nulls);
                    if (shape == null) {
                        shape = new Shape(connection.prepareStatement(insert(nulls)));
                        shapes.put(nulls, shape);
                    }
                    shape.add(ids.next(row.ts()), row, taken);
                }
                for (Shape shape : shapes.values()) {
                    shape.send(taken);
                }
                for (RequestLogRow row : taken) {
                    shapes.get(nulls(row)).addAfterStored(connection, row);
                }
                connection.commit();
            } catch (SQLException | RuntimeException e) {
                connection.rollback();
                throw e;
            } finally {
                for (Shape shape : shapes.values()) {
                    shape.statement.close();
                }
                connection.setAutoCommit(true);
            }
        }
    }

    /** The statement for rows whose null columns are {@code nulls}: those written as NULL, the others bound. */
    static String insert(int nulls) {
        StringBuilder sql = new StringBuilder("INSERT INTO request_log (id, ").append(String.join(", ", COLUMNS))
                .append(") VALUES (?");
        for (int i = 0; i < COLUMNS.size(); i++) {
            sql.append((nulls & (1 << i)) != 0 ? ", NULL" : ", ?");
        }
        // an id found taken is not an error: the row is written again after its millisecond's highest id
        return sql.append(") ON CONFLICT (id) DO NOTHING").toString();
    }

    /** The bit of a nullable column in a row's shape: its place among the columns, as {@link #insert} reads it. */
    private static int nullable(String column) {
        int place = COLUMNS.indexOf(column);
        if (place < 0) {
            throw new IllegalArgumentException("no request_log column " + column);
        }
        return 1 << place;
    }

    /** Which of the row's nullable columns are null. */
    static int nulls(RequestLogRow row) {
        return (row.api() == null ? API : 0)
                | (row.model() == null ? MODEL : 0)
                | (row.servedModel() == null ? SERVED_MODEL : 0)
                | (row.channel() == null ? CHANNEL : 0)
                | (row.keyFingerprint() == null ? KEY : 0)
                | (row.pool() == null ? POOL : 0)
                | (row.fallbackLevel() == null ? FALLBACK_LEVEL : 0)
                | (row.errorCode() == null ? ERROR_CODE : 0)
                | (row.ttfbMs() == null ? TTFB : 0)
                | (row.requestBody() == null ? REQUEST_BODY : 0)
                | (row.answerBody() == null ? ANSWER_BODY : 0);
    }

    /** The id and the row's values that are not null, in the order of {@link #insert}'s parameters. */
    static void bind(PreparedStatement insert, long id, RequestLogRow row) throws SQLException {
        int p = 1;
        insert.setLong(p++, id);
        insert.setLong(p++, row.ts());
        insert.setString(p++, row.requestId());
        insert.setString(p++, row.source());
        insert.setString(p++, row.tenant());
        p = text(insert, p, row.api());
        p = text(insert, p, row.model());
        p = text(insert, p, row.servedModel());
        p = text(insert, p, row.channel());
        p = text(insert, p, row.keyFingerprint());
        p = text(insert, p, row.pool());
        insert.setInt(p++, row.attempts());
        if (row.fallbackLevel() != null) {
            insert.setInt(p++, row.fallbackLevel());
        }
        insert.setInt(p++, row.status());
        p = text(insert, p, row.errorCode());
        insert.setLong(p++, row.promptTokens());
        insert.setLong(p++, row.completionTokens());
        insert.setLong(p++, row.cachedTokens());
        insert.setLong(p++, row.cacheWriteTokens());
        insert.setDouble(p++, row.costUsd());
        insert.setLong(p++, row.latencyMs());
        if (row.ttfbMs() != null) {
            insert.setLong(p++, row.ttfbMs());
        }
        p = text(insert, p, row.requestBody());
        text(insert, p, row.answerBody());
    }

    private static int text(PreparedStatement insert, int p, String value) throws SQLException {
        if (value == null) {
            return p;
        }
        insert.setString(p, value);
        return p + 1;
    }

    /** The rows of one shape in a write: their statement and the rows of its JDBC batch not yet sent. */
    private final class Shape {

        final PreparedStatement statement;
        private final List<RequestLogRow> batch = new ArrayList<>(BATCH);

        Shape(PreparedStatement statement) {
            this.statement = statement;
        }

        void add(long id, RequestLogRow row, List<RequestLogRow> taken) throws SQLException {
            bind(statement, id, row);
            statement.addBatch();
            batch.add(row);
            if (batch.size() == BATCH) {
                send(taken);
            }
        }

        /** Sends the batch; the rows whose id was taken (nothing inserted) go to {@code taken}. */
        void send(List<RequestLogRow> taken) throws SQLException {
            if (batch.isEmpty()) {
                return;
            }
            int[] inserted = statement.executeBatch();
            for (int i = 0; i < inserted.length; i++) {
                if (inserted[i] == 0) {
                    taken.add(batch.get(i));
                }
            }
            batch.clear();
        }

        /** The row after the highest id its millisecond holds, in the same transaction. */
        void addAfterStored(Connection connection, RequestLogRow row) throws SQLException {
            Long highest;
            try (PreparedStatement select = connection.prepareStatement(HIGHEST_ID)) {
                select.setLong(1, TimeIds.first(row.ts()));
                select.setLong(2, TimeIds.first(row.ts() + 1));
                try (ResultSet r = select.executeQuery()) {
                    r.next();
                    long max = r.getLong(1);
                    highest = r.wasNull() ? null : max;
                }
            }
            bind(statement, ids.afterStored(row.ts(), highest), row);
            if (statement.executeUpdate() != 1) {
                throw new SQLException("request-log id of " + row.ts() + " taken after its millisecond's highest");
            }
        }
    }
}
