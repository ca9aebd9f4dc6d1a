package dev.keypool.store;

import java.nio.file.Path;
import java.util.Optional;

import dev.keypool.batch.BatchStore;
import dev.keypool.batch.BatchStoreContract;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.io.TempDir;

/**
 * The database's batch store, on SQLite: the SQL is the same on PostgreSQL, where {@link PostgresBatchStoresTest} runs
 * the same contract with several connections at once.
 */
class JdbcBatchStoreTest extends BatchStoreContract {

    @TempDir
    Path dir;

    private Database database;

    @Override
    protected BatchStore store() {
        database = Database.open(Optional.empty(), dir, 2, 5000);
        return new JdbcBatchStore(database.dataSource(), JSON);
    }

    @AfterEach
    void close() {
        if (database != null) {
            database.close();
        }
    }
}
