package dev.keypool.store;

import java.nio.file.Path;
import java.util.Optional;

import dev.keypool.batch.TaskStore;
import dev.keypool.batch.TaskStoreContract;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.io.TempDir;

/** The database's task store, on SQLite: the SQL is the same on PostgreSQL ({@link PostgresBatchStoresTest}). */
class JdbcTaskStoreTest extends TaskStoreContract {

    @TempDir
    Path dir;

    private Database database;

    @Override
    protected TaskStore store() {
        database = Database.open(Optional.empty(), dir, 2, 5000);
        return new JdbcTaskStore(database.dataSource(), JSON, clock, LIMITS);
    }

    @AfterEach
    void close() {
        if (database != null) {
            database.close();
        }
    }
}
