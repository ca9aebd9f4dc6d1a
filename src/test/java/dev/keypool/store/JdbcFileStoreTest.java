package dev.keypool.store;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.Set;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.keypool.batch.BatchLimits;
import dev.keypool.batch.FileStore;
import dev.keypool.batch.StorageLimitException;
import dev.keypool.testing.MutableClock;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The Batch API's files in the database, contents included: what every instance reads, expiring as OpenAI's do. */
class JdbcFileStoreTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private final MutableClock clock = new MutableClock(Instant.parse("2026-12-01T10:00:00Z"));

    @TempDir
    Path dir;

    private Database database;
    private FileStore files;

    @BeforeEach
    void open() {
        database = Database.open(Optional.empty(), dir, 2, 5000);
        files = new JdbcFileStore(database.dataSource(), JSON, clock, new BatchLimits(Duration.ofHours(24), 1000, 4096, 4096));
    }

    @AfterEach
    void close() {
        database.close();
    }

    @Test
    void should_keep_an_uploads_bytes_and_owner_until_it_expires() {
        byte[] bytes = "{\"custom_id\":\"a\"}\n".getBytes(StandardCharsets.UTF_8);
        // a slice of a larger buffer, as an upload's file part is of its mapped body
        ByteBuffer body = ByteBuffer.allocate(bytes.length + 20).position(10).put(bytes).position(10).limit(10 + bytes.length);
        FileStore.StoredFile stored = files.upload("in.jsonl", "batch", "team-a", body.slice(), Duration.ofHours(2));

        FileStore.StoredFile read = files.get(stored.id()).orElseThrow();
        assertThat(read.owner()).isEqualTo("team-a");
        assertThat(read.purpose()).isEqualTo("batch");
        assertThat(read.object().get("bytes").asLong()).isEqualTo(bytes.length);
        assertThat(files.content(stored.id())).isEqualTo(bytes);
        assertThat(files.create("out.jsonl", "batch_output", null, bytes).owner()).isNull();

        clock.advance(Duration.ofHours(2));
        assertThat(files.get(stored.id())).isEmpty();
        assertThat(files.expire(Set.of())).isEqualTo(1);
        assertThat(files.delete(stored.id())).isFalse();
    }

    @Test
    void should_keep_an_expired_input_of_a_batch_still_running_and_refuse_an_upload_past_the_tenants_storage() {
        FileStore.StoredFile input = files.create("in.jsonl", "batch", "team-a", new byte[1000]);
        clock.advance(Duration.ofHours(25));
        assertThat(files.expire(Set.of(input.id()))).isZero();

        assertThatThrownBy(() -> files.upload("big.jsonl", "batch", "team-a", ByteBuffer.wrap(new byte[3500]), null))
                .isInstanceOfSatisfying(StorageLimitException.class,
                        e -> assertThat(e.limit()).isEqualTo(StorageLimitException.Limit.STORED_BYTES));
        assertThat(files.upload("big.jsonl", "batch", "team-b", ByteBuffer.wrap(new byte[3500]), null)).isNotNull();
    }
}
