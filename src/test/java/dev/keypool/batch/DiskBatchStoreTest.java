package dev.keypool.batch;

import java.nio.file.Path;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.io.TempDir;

/** The batch store of a gateway alone: its leases in memory, its batches and journals under state.dir. */
class DiskBatchStoreTest extends BatchStoreContract {

    @TempDir
    Path dir;

    private DiskBatchStore store;

    @Override
    protected BatchStore store() {
        store = new DiskBatchStore(dir, JSON);
        return store;
    }

    @AfterEach
    void close() {
        if (store != null) {
            store.close();
        }
    }
}
