package dev.keypool.batch;

import java.nio.file.Path;

import org.junit.jupiter.api.io.TempDir;

/** The task store of a gateway alone: its leases in memory, its tasks under state.dir. */
class DiskTaskStoreTest extends TaskStoreContract {

    @TempDir
    Path dir;

    @Override
    protected TaskStore store() {
        return new DiskTaskStore(dir, JSON, clock, LIMITS, new TenantStorage(MAX_STORED));
    }
}
