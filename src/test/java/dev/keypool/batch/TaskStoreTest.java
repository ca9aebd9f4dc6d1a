package dev.keypool.batch;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.keypool.testing.MutableClock;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;

class TaskStoreTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private final MutableClock clock = new MutableClock();

    @TempDir
    Path dir;

    private AsyncTask queued() {
        return AsyncTask.queued("team-a", "chat/completions", "chat", "{}".getBytes(StandardCharsets.UTF_8), clock.instant());
    }

    @Test
    void should_keep_a_done_task_for_the_retention_after_it_was_done() {
        TaskStore store = new TaskStore(dir, JSON, clock, Duration.ofHours(24));
        AsyncTask task = store.put(queued());
        clock.advance(Duration.ofHours(2));
        store.put(task.finished(200, JSON.createObjectNode(), clock.instant(), JSON));
        clock.advance(Duration.ofHours(23));
        assertThat(store.get(task.id())).isPresent();
        assertThat(store.expire()).isZero();
        clock.advance(Duration.ofHours(1));
        assertThat(store.get(task.id())).isEmpty();
        assertThat(store.expire()).isEqualTo(1);
        assertThat(new TaskStore(dir, JSON, clock, Duration.ofHours(24)).get(task.id())).isEmpty();
    }

    @Test
    void should_give_the_tasks_left_unfinished_at_a_stop_once_and_as_queued() {
        TaskStore store = new TaskStore(dir, JSON, clock, Duration.ofHours(24));
        AsyncTask running = store.put(queued().started());
        AsyncTask done = store.put(queued().finished(500, JSON.createObjectNode(), clock.instant(), JSON));
        TaskStore restarted = new TaskStore(dir, JSON, clock, Duration.ofHours(24));
        assertThat(restarted.leftOver()).extracting(AsyncTask::id).containsExactly(running.id());
        assertThat(restarted.leftOver()).isEmpty();
        assertThat(restarted.get(running.id()).orElseThrow().status()).isEqualTo(TaskStatus.QUEUED);
        assertThat(restarted.get(done.id()).orElseThrow().status()).isEqualTo(TaskStatus.FAILED);
        assertThat(new String(restarted.get(running.id()).orElseThrow().request(), StandardCharsets.UTF_8)).isEqualTo("{}");
    }
}
