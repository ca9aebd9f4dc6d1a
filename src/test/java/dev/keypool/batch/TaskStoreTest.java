package dev.keypool.batch;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.stream.Stream;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.keypool.testing.MutableClock;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class TaskStoreTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final byte[] REQUEST = "{}".getBytes(StandardCharsets.UTF_8);
    private final MutableClock clock = new MutableClock();
    private final TenantStorage storage = new TenantStorage(1024 * 1024);
    private final BatchLimits limits = new BatchLimits(Duration.ofHours(24), 1000, storage.maxBytes(), storage.maxBytes());

    @TempDir
    Path dir;

    private final Claimant claimant = new Claimant("one", Duration.ofSeconds(30));

    private DiskTaskStore store() {
        return new DiskTaskStore(dir, JSON, clock, limits, storage);
    }

    private AsyncTask submit(DiskTaskStore store) {
        return store.submit("team-a", "chat/completions", "chat", REQUEST, claimant);
    }

    @Test
    void should_keep_a_done_task_for_the_retention_after_it_was_done() {
        DiskTaskStore store = store();
        AsyncTask task = submit(store);
        clock.advance(Duration.ofHours(2));
        store.finish(task.id(), 200, JSON.createObjectNode());
        clock.advance(Duration.ofHours(23));
        assertThat(store.get(task.id())).isPresent();
        assertThat(store.expire()).isZero();
        clock.advance(Duration.ofHours(1));
        assertThat(store.get(task.id())).isEmpty();
        assertThat(store.expire()).isEqualTo(1);
        assertThat(store().get(task.id())).isEmpty();
    }

    @Test
    void should_let_the_tasks_left_unfinished_at_a_stop_be_claimed_once_and_as_queued() {
        DiskTaskStore store = store();
        AsyncTask running = submit(store);
        store.start(running.id(), claimant);
        AsyncTask done = submit(store);
        store.finish(done.id(), 500, JSON.createObjectNode());
        DiskTaskStore restarted = store();
        // claimed once, by whoever claims first: then under its lease
        Claimant next = new Claimant("two", Duration.ofSeconds(30));
        assertThat(restarted.claim(next, clock.instant(), 100)).containsExactly(running.id());
        assertThat(restarted.claim(next, clock.instant(), 100)).isEmpty();
        assertThat(restarted.get(running.id()).orElseThrow().status()).isEqualTo(TaskStatus.QUEUED);
        assertThat(restarted.get(done.id()).orElseThrow().status()).isEqualTo(TaskStatus.FAILED);
        assertThat(new String(restarted.request(running.id()), StandardCharsets.UTF_8)).isEqualTo("{}");
    }

    @Test
    void should_keep_the_answer_of_a_done_task_and_not_its_request() throws Exception {
        DiskTaskStore store = store();
        byte[] big = ("{\"model\":\"m\",\"messages\":[{\"role\":\"user\",\"content\":\"" + "x".repeat(100_000) + "\"}]}")
                .getBytes(StandardCharsets.UTF_8);
        AsyncTask task = store.submit("team-a", "chat/completions", "chat", big, claimant);
        assertThat(storage.used("team-a")).isGreaterThan(100_000);
        store.finish(task.id(), 200, JSON.createObjectNode().put("answer", "ok"));
        assertThat(storage.used("team-a")).isLessThan(1_000);
        try (Stream<Path> files = Files.list(dir)) {
            assertThat(files).containsExactly(dir.resolve(task.id() + ".json"));
        }
        assertThat(Files.readString(dir.resolve(task.id() + ".json"))).doesNotContain("xxxx");
        assertThat(store().get(task.id()).orElseThrow().response().at("/body/answer").asText()).isEqualTo("ok");
    }

    @Test
    void should_refuse_a_tenants_task_past_its_queued_tasks_before_writing_it() throws Exception {
        DiskTaskStore store = new DiskTaskStore(dir, JSON, clock,
                new BatchLimits(Duration.ofHours(24), 2, storage.maxBytes(), storage.maxBytes()), storage);
        AsyncTask first = submit(store);
        submit(store);
        assertThatThrownBy(() -> submit(store)).isInstanceOfSatisfying(StorageLimitException.class,
                e -> assertThat(e.limit()).isEqualTo(StorageLimitException.Limit.QUEUED_TASKS));
        assertThat(store.submit("team-b", "chat/completions", "chat", REQUEST, claimant)).isNotNull();
        try (Stream<Path> files = Files.list(dir)) {
            assertThat(files.filter(f -> f.toString().endsWith(".json"))).hasSize(3);
        }
        store.finish(first.id(), 200, JSON.createObjectNode());
        assertThat(submit(store)).isNotNull();
    }

    @Test
    void should_refuse_a_task_past_its_tenants_storage_before_writing_it() throws Exception {
        DiskTaskStore store = store();
        byte[] half = new byte[600 * 1024];
        store.submit("team-a", "chat/completions", "chat", half, claimant);
        assertThatThrownBy(() -> store.submit("team-a", "chat/completions", "chat", half, claimant))
                .isInstanceOfSatisfying(StorageLimitException.class,
                        e -> assertThat(e.limit()).isEqualTo(StorageLimitException.Limit.STORED_BYTES));
        try (Stream<Path> files = Files.list(dir)) {
            assertThat(files).hasSize(2);   // the first task and its request
        }
    }

    @Test
    void should_count_the_tasks_read_back_at_startup_in_their_tenants_storage() {
        AsyncTask task = store().submit("team-a", "chat/completions", "chat", new byte[1000], claimant);
        TenantStorage fresh = new TenantStorage(1024 * 1024);
        DiskTaskStore restarted = new DiskTaskStore(dir, JSON, clock, limits, fresh);
        assertThat(fresh.used("team-a")).isGreaterThan(1000);
        clock.advance(Duration.ofHours(24));
        restarted.expire();
        assertThat(fresh.used("team-a")).isZero();
        assertThat(restarted.get(task.id())).isEmpty();
    }
}
