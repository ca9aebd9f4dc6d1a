package dev.keypool.store;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.List;

import dev.keypool.testing.PostgresDatabase;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import static org.assertj.core.api.Assertions.assertThat;

/** The request log's writer on a real PostgreSQL: COPY, held to the same contract as SQLite's batched INSERTs. */
@Tag("slow")
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class PostgresRequestLogWriterTest extends RequestLogWriterContract {

    private PostgresDatabase postgres;
    private Database database;

    @BeforeAll
    void start() {
        postgres = PostgresDatabase.start();
        database = postgres.database();
    }

    @AfterAll
    void stop() {
        postgres.close();
    }

    @Override
    protected Database database() {
        return database;
    }

    @Test
    void should_copy_on_postgresql() {
        assertThat(RequestLogWriter.of(database)).isInstanceOf(PostgresRequestLogWriter.class);
    }

    @Test
    void should_keep_a_row_whose_body_holds_a_nul_character() throws Exception {
        // PostgreSQL's text holds no NUL: the character becomes U+FFFD and the row, and the rows beside it, are kept
        RequestLogWriter.of(database).insert(List.of(served("req_before", "{}", "{}"),
                served("req_nul", "{\"content\":\"a\u0000b\"}", "{}"), served("req_after", "{}", "{}")));

        assertThat(requestIds()).containsExactly("req_before", "req_nul", "req_after");
        try (Connection c = database.dataSource().getConnection(); Statement s = c.createStatement();
             ResultSet r = s.executeQuery("SELECT request_body FROM request_log WHERE request_id = 'req_nul'")) {
            r.next();
            assertThat(r.getString(1)).isEqualTo("{\"content\":\"a\uFFFDb\"}");
        }
    }
}
