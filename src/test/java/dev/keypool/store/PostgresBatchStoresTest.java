package dev.keypool.store;

import dev.keypool.batch.BatchStore;
import dev.keypool.batch.BatchStoreContract;
import dev.keypool.batch.TaskStore;
import dev.keypool.batch.TaskStoreContract;
import dev.keypool.testing.PostgresDatabase;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.TestInstance;

/**
 * The batch and task stores of the shared database on a real PostgreSQL: the same contracts as on this instance's disk
 * and on SQLite (claims, leases, results recorded once, stale changes refused).
 */
@Tag("slow")
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class PostgresBatchStoresTest {

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

    @Nested
    class Batches extends BatchStoreContract {
        @Override
        protected BatchStore store() {
            return new JdbcBatchStore(database.dataSource(), JSON);
        }
    }

    @Nested
    class Tasks extends TaskStoreContract {
        @Override
        protected TaskStore store() {
            return new JdbcTaskStore(database.dataSource(), JSON, clock, LIMITS);
        }
    }
}
