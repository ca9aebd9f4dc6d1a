package dev.keypool.batch;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.keypool.testing.MutableClock;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * What every {@link TaskStore} does, on this instance's disk or in the shared database: a task runs on the member
 * holding its lease, moves to another once that lease runs out unrenewed, and keeps the first answer it gets. Each
 * implementation's test class gives the store, with at most {@link #MAX_QUEUED} tasks queued per tenant and 1 MiB
 * stored.
 */
public abstract class TaskStoreContract {

    protected static final ObjectMapper JSON = new ObjectMapper();
    protected static final int MAX_QUEUED = 3;
    protected static final long MAX_STORED = 1024 * 1024;
    protected static final BatchLimits LIMITS = new BatchLimits(Duration.ofHours(24), MAX_QUEUED, MAX_STORED, MAX_STORED);
    private static final byte[] REQUEST = "{\"model\":\"m\"}".getBytes(StandardCharsets.UTF_8);

    protected final MutableClock clock = new MutableClock(Instant.parse("2026-12-01T10:00:00Z"));
    private final Claimant one = new Claimant("one", Duration.ofSeconds(30));
    private final Claimant two = new Claimant("two", Duration.ofSeconds(30));

    /** A store of this implementation, empty, keeping tasks 24 hours. */
    protected abstract TaskStore store();

    @Test
    void should_move_a_task_to_another_member_once_its_lease_runs_out_and_keep_its_first_answer() {
        TaskStore store = store();
        AsyncTask task = store.submit("team-move", "chat/completions", "chat", REQUEST, one);
        assertThat(store.claim(two, clock.instant(), 100)).doesNotContain(task.id());
        assertThat(store.start(task.id(), two)).isEmpty();

        clock.advance(Duration.ofSeconds(20));
        store.renew(one, clock.instant());
        clock.advance(Duration.ofSeconds(20));
        assertThat(store.claim(two, clock.instant(), 100)).doesNotContain(task.id());
        assertThat(store.start(task.id(), one).orElseThrow().status()).isEqualTo(TaskStatus.IN_PROGRESS);

        // the member running it goes silent for a whole lease
        clock.advance(Duration.ofSeconds(31));
        assertThat(store.claim(two, clock.instant(), 100)).contains(task.id());
        assertThat(store.claim(two, clock.instant(), 100)).doesNotContain(task.id());
        assertThat(store.start(task.id(), one)).isEmpty();
        assertThat(store.start(task.id(), two)).isPresent();
        assertThat(new String(store.request(task.id()), StandardCharsets.UTF_8)).isEqualTo("{\"model\":\"m\"}");

        assertThat(store.finish(task.id(), 200, JSON.createObjectNode().put("answer", "first"))).isPresent();
        assertThat(store.finish(task.id(), 500, JSON.createObjectNode().put("answer", "second"))).isEmpty();
        AsyncTask done = store.get(task.id()).orElseThrow();
        assertThat(done.status()).isEqualTo(TaskStatus.COMPLETED);
        assertThat(done.response().at("/body/answer").asText()).isEqualTo("first");
        assertThat(done.owner()).isEqualTo("team-move");
        assertThat(store.start(task.id(), two)).isEmpty();
        clock.advance(Duration.ofDays(2));
        assertThat(store.claim(two, clock.instant(), 100)).doesNotContain(task.id());
    }

    @Test
    void should_refuse_a_tenants_task_past_its_queued_tasks_or_storage() {
        TaskStore store = store();
        for (int i = 0; i < MAX_QUEUED; i++) {
            store.submit("team-full", "chat/completions", "chat", REQUEST, one);
        }
        assertThatThrownBy(() -> store.submit("team-full", "chat/completions", "chat", REQUEST, two))
                .isInstanceOfSatisfying(StorageLimitException.class,
                        e -> assertThat(e.limit()).isEqualTo(StorageLimitException.Limit.QUEUED_TASKS));
        assertThatThrownBy(() -> store.checkRoom("team-full", 1))
                .isInstanceOf(StorageLimitException.class);
        store.checkRoom("team-empty", 1);
        assertThatThrownBy(() -> store.checkRoom("team-empty", MAX_STORED + 1))
                .isInstanceOfSatisfying(StorageLimitException.class,
                        e -> assertThat(e.limit()).isEqualTo(StorageLimitException.Limit.STORED_BYTES));
    }

    @Test
    void should_forget_a_task_after_its_retention() {
        TaskStore store = store();
        AsyncTask task = store.submit(null, "chat/completions", "chat", REQUEST, one);
        store.start(task.id(), one);
        store.finish(task.id(), 200, JSON.createObjectNode());
        clock.advance(Duration.ofHours(23));
        assertThat(store.get(task.id())).isPresent();
        clock.advance(Duration.ofHours(1));
        assertThat(store.get(task.id())).isEmpty();
        assertThat(store.expire()).isPositive();
    }

    @Test
    void should_let_another_member_claim_at_once_the_tasks_a_stopping_member_gives_up() {
        // members of their own: on a database the other tests share, none of their leases is among these
        Claimant stopping = new Claimant("stopping", Duration.ofSeconds(30));
        Claimant taking = new Claimant("taking", Duration.ofSeconds(30));
        TaskStore store = store();
        AsyncTask waiting = store.submit("team-stop", "chat/completions", "chat", REQUEST, stopping);
        AsyncTask running = store.submit("team-stop", "chat/completions", "chat", REQUEST, stopping);
        store.start(running.id(), stopping);
        assertThat(store.claim(taking, clock.instant(), 100)).doesNotContain(waiting.id(), running.id());

        assertThat(store.release(stopping)).isEqualTo(2);

        // long before the lease would have run out
        assertThat(store.claim(taking, clock.instant(), 100)).contains(waiting.id(), running.id());
        assertThat(store.start(running.id(), taking)).isPresent();
        assertThat(store.start(waiting.id(), stopping)).isEmpty();
        // the leases the other member took are not the first one's to give up
        assertThat(store.release(stopping)).isZero();
        assertThat(store.start(waiting.id(), taking)).isPresent();
    }
}
