package dev.keypool.batch;

import java.nio.file.Path;
import java.time.Duration;

import org.junit.jupiter.api.io.TempDir;

/** The task store of a gateway alone: its leases in memory, its tasks under state.dir. */
class DiskTaskStoreTest extends TaskStoreContract {

    @TempDir
    Path dir;

    @Override
    protected TaskStore store() {
        return new DiskTaskStore(dir, JSON, clock, Duration.ofHours(24), MAX_QUEUED, new TenantStorage(MAX_STORED));
    }
}
