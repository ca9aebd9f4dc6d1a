package dev.keypool.store;

import java.nio.file.Path;
import java.util.Optional;

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
    void should_insert_in_jdbc_batches_on_sqlite() {
        assertThat(RequestLogWriter.of(database())).isInstanceOf(JdbcRequestLogWriter.class);
    }
}
