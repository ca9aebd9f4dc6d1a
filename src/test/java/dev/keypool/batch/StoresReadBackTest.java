package dev.keypool.batch;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.keypool.testing.MutableClock;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A crash in the middle of a state file's write leaves its temporary file beside the whole previous version
 * (StateFiles): each store reads its directory back at startup without it, and deletes it, so that none piles up
 * over restarts.
 */
class StoresReadBackTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private final MutableClock clock = new MutableClock();
    private final TenantStorage storage = new TenantStorage(1024 * 1024);
    private final BatchLimits limits = new BatchLimits(Duration.ofHours(24), 1000, storage.maxBytes(), storage.maxBytes());

    @TempDir
    Path dir;

    /** What StateFiles names the temporary file of a write of {@code target}, as a crash leaves it. */
    private static Path crashLeftTempOf(Path target) throws Exception {
        return Files.writeString(target.resolveSibling("." + target.getFileName() + ".4711.tmp"), "{\"half");
    }

    @Test
    void should_read_back_the_batches_without_the_temporary_file_a_crash_left_and_delete_it() throws Exception {
        DiskBatchStore store = new DiskBatchStore(dir, JSON);
        store.create(new Batch("batch_1", "/v1/chat/completions", "file-1", "team-a", Instant.EPOCH, Map.of()), null, Instant.EPOCH);
        store.close();
        Path temp = crashLeftTempOf(dir.resolve("batch_1.batch.json"));

        DiskBatchStore restarted = new DiskBatchStore(dir, JSON);
        restarted.close();

        assertThat(restarted.get("batch_1")).isPresent();
        assertThat(temp).doesNotExist();
    }

    @Test
    void should_read_back_the_tasks_without_the_temporary_file_a_crash_left_and_delete_it() throws Exception {
        AsyncTask task = new DiskTaskStore(dir, JSON, clock, limits, storage)
                .submit("team-a", "chat/completions", "chat", "{}".getBytes(StandardCharsets.UTF_8),
                        new Claimant("one", Duration.ofSeconds(30)));
        Path temp = crashLeftTempOf(dir.resolve(task.id() + ".json"));

        DiskTaskStore restarted = new DiskTaskStore(dir, JSON, clock, limits, storage);

        assertThat(restarted.get(task.id())).isPresent();
        assertThat(temp).doesNotExist();
    }

    @Test
    void should_read_back_the_files_without_the_temporary_file_a_crash_left_and_delete_it() throws Exception {
        FileStore.StoredFile file = new DiskFileStore(dir, JSON, clock, limits, storage)
                .create("in.jsonl", "batch", "team-a", "{}\n".getBytes(StandardCharsets.UTF_8));
        Path temp = crashLeftTempOf(dir.resolve(file.id() + ".json"));

        DiskFileStore restarted = new DiskFileStore(dir, JSON, clock, limits, new TenantStorage(1024 * 1024));

        assertThat(restarted.get(file.id())).isPresent();
        assertThat(temp).doesNotExist();
    }
}
