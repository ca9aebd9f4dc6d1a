package dev.keypool.store;

import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.IntStream;

import javax.sql.DataSource;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;

/** The request log's writer on SQLite in a temporary state.dir (PostgreSQL: PostgresRequestLogWriterTest). */
class RequestLogWriterTest extends RequestLogWriterContract {

    @TempDir
    Path stateDir;

    private Database database;

    @Override
    protected Database database() {
        if (database == null) {
            database = Database.open(Optional.empty(), stateDir, 4, 5000);
        }
        return database;
    }

    @AfterEach
    void close() {
        database.close();
    }

    @Test
    void should_insert_in_multi_row_statements_on_sqlite() {
        assertThat(RequestLogWriter.of(database())).isInstanceOf(JdbcRequestLogWriter.class);
    }

    @Test
    void should_run_one_statement_for_many_rows() throws Exception {
        // each statement run is a step through JNI and a start of SQLite's cursors on the table and its two indexes
        AtomicInteger runs = new AtomicInteger();
        List<RequestLogRow> rows = IntStream.range(0, 1_000).mapToObj(i -> served("req_" + i, null, null)).toList();

        new JdbcRequestLogWriter(countingRuns(database().dataSource(), runs)).insert(rows);

        assertThat(requestIds()).hasSize(1_000).startsWith("req_0").endsWith("req_999");
        // 31 statements of 32 rows, one of the 8 left
        assertThat(runs).hasValue(1_000 / JdbcRequestLogWriter.ROWS + 1);
    }

    /** {@code dataSource}, counting each run of a prepared statement: an execute, or a row added to a JDBC batch. */
    private static DataSource countingRuns(DataSource dataSource, AtomicInteger runs) {
        return proxy(DataSource.class, dataSource, (target, method, args) -> {
            Object result = method.invoke(target, args);
            return method.getName().equals("getConnection") ? proxy(Connection.class, result, (connection, m, a) -> {
                Object made = m.invoke(connection, a);
                return m.getName().equals("prepareStatement") ? proxy(PreparedStatement.class, made, (statement, s, p) -> {
                    if (s.getName().startsWith("execute") && !s.getName().equals("executeBatch")
                            || s.getName().equals("addBatch")) {
                        runs.incrementAndGet();
                    }
                    return s.invoke(statement, p);
                }) : made;
            }) : result;
        });
    }

    private interface Forward {
        Object call(Object target, java.lang.reflect.Method method, Object[] args) throws Exception;
    }

    private static <T> T proxy(Class<T> type, Object target, Forward forward) {
        InvocationHandler handler = (self, method, args) -> {
            try {
                return forward.call(target, method, args);
            } catch (InvocationTargetException e) {
                throw e.getCause();
            }
        };
        return type.cast(Proxy.newProxyInstance(type.getClassLoader(), new Class<?>[] {type}, handler));
    }
}
