package dev.keypool.batch;

import java.time.Duration;
import java.time.Instant;
import java.util.Map;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.keypool.testing.MutableClock;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What every {@link BatchStore} does, on this instance's disk or in the shared database: a batch is worked by the one
 * member holding its lease until it runs out unrenewed, a line's result is recorded once, and a change made on a copy
 * that another change overtook is refused. Each implementation's test class gives the store.
 */
public abstract class BatchStoreContract {

    protected static final ObjectMapper JSON = new ObjectMapper();
    protected final MutableClock clock = new MutableClock(Instant.parse("2026-12-01T10:00:00Z"));
    private final Claimant one = new Claimant("one", Duration.ofSeconds(30));
    private final Claimant two = new Claimant("two", Duration.ofSeconds(30));

    /** A store of this implementation, empty. */
    protected abstract BatchStore store();

    private static int next;

    private Batch batch(BatchStore store, String owner, Map<String, String> metadata) {
        Batch batch = new Batch(Ids.next("batch_"), "/v1/chat/completions", Ids.next("file-"), owner,
                clock.instant().plusSeconds(next++), metadata);
        store.create(batch, null, clock.instant());
        return batch;
    }

    private Batch running(BatchStore store) {
        Batch batch = batch(store, "team-a", Map.of());
        Batch copy = store.get(batch.id()).orElseThrow();
        copy.lines(3);
        copy.moveTo(BatchStatus.IN_PROGRESS, clock.instant());
        assertThat(store.update(copy, BatchStatus.VALIDATING)).isTrue();
        return copy;
    }

    private static BatchResult answered(int line, boolean ok) {
        BatchLine input = new BatchLine(line, "c-" + line, "/v1/chat/completions", new byte[0], null);
        return BatchResult.answered(input, ok ? 200 : 400, "req_1", JSON.createObjectNode(), JSON);
    }

    @Test
    void should_let_one_member_work_a_batch_until_its_lease_runs_out_unrenewed() {
        BatchStore store = store();
        Batch batch = running(store);
        assertThat(store.claimable(two, clock.instant())).contains(batch.id());

        assertThat(store.claim(batch.id(), one, clock.instant())).isTrue();
        assertThat(store.claim(batch.id(), two, clock.instant())).isFalse();
        assertThat(store.claimable(two, clock.instant())).doesNotContain(batch.id());
        assertThat(store.get(batch.id()).orElseThrow().claimedBy()).isEqualTo("one");

        // renewed by its heartbeat, the lease holds past its first term
        clock.advance(Duration.ofSeconds(20));
        store.renew(one, clock.instant());
        clock.advance(Duration.ofSeconds(20));
        assertThat(store.claim(batch.id(), two, clock.instant())).isFalse();

        // no heartbeat for a whole lease: any other member takes it, and the first one has lost it
        clock.advance(Duration.ofSeconds(30));
        assertThat(store.claimable(two, clock.instant())).contains(batch.id());
        assertThat(store.claimable(one, clock.instant())).doesNotContain(batch.id());
        assertThat(store.claim(batch.id(), two, clock.instant())).isTrue();
        assertThat(store.get(batch.id()).orElseThrow().claimedBy()).isEqualTo("two");
        assertThat(store.claim(batch.id(), one, clock.instant())).isFalse();
    }

    @Test
    void should_let_another_member_claim_at_once_the_batches_a_stopping_member_gives_up() {
        // members of their own: on a database the other tests share, none of their leases is among these
        Claimant stopping = new Claimant("stopping", Duration.ofSeconds(30));
        Claimant taking = new Claimant("taking", Duration.ofSeconds(30));
        BatchStore store = store();
        Batch first = running(store);
        Batch second = running(store);
        assertThat(store.claim(first.id(), stopping, clock.instant())).isTrue();
        assertThat(store.claim(second.id(), stopping, clock.instant())).isTrue();
        assertThat(store.claimable(taking, clock.instant())).doesNotContain(first.id(), second.id());

        assertThat(store.release(stopping)).isEqualTo(2);

        // long before the lease would have run out
        assertThat(store.get(first.id()).orElseThrow().claimedBy()).isNull();
        assertThat(store.claimable(taking, clock.instant())).contains(first.id(), second.id());
        assertThat(store.claim(first.id(), taking, clock.instant())).isTrue();
        // the lease the other member took is not the first one's to give up
        assertThat(store.release(stopping)).isZero();
        assertThat(store.get(first.id()).orElseThrow().claimedBy()).isEqualTo("taking");
        assertThat(store.claim(first.id(), stopping, clock.instant())).isFalse();
    }

    @Test
    void should_record_a_lines_result_once_and_count_it() {
        BatchStore store = store();
        Batch batch = running(store);
        assertThat(store.record(batch.id(), answered(0, true))).isTrue();
        assertThat(store.record(batch.id(), answered(0, true))).isFalse();
        assertThat(store.record(batch.id(), answered(2, false))).isTrue();

        assertThat(store.done(batch.id())).containsExactlyInAnyOrder(0, 2);
        assertThat(store.results(batch.id())).extracting(BatchResult::line).containsExactly(0, 2);
        assertThat(store.results(batch.id()).get(0).record().get("custom_id").asText()).isEqualTo("c-0");
        Batch read = store.get(batch.id()).orElseThrow();
        assertThat(read.toJson(JSON).get("request_counts").toString())
                .isEqualTo("{\"total\":3,\"completed\":1,\"failed\":1}");
    }

    @Test
    void should_refuse_a_change_to_a_copy_that_another_change_overtook() {
        BatchStore store = store();
        Batch batch = running(store);
        Batch cancelled = store.get(batch.id()).orElseThrow();
        Batch finalizing = store.get(batch.id()).orElseThrow();
        cancelled.moveTo(BatchStatus.CANCELLING, clock.instant());
        finalizing.moveTo(BatchStatus.FINALIZING, clock.instant());

        assertThat(store.update(cancelled, BatchStatus.IN_PROGRESS)).isTrue();
        assertThat(store.update(finalizing, BatchStatus.IN_PROGRESS)).isFalse();
        assertThat(store.get(batch.id()).orElseThrow().status()).isEqualTo(BatchStatus.CANCELLING);
    }

    @Test
    void should_keep_the_counts_of_a_batch_over_and_hold_it_under_no_lease() {
        BatchStore store = store();
        Batch batch = running(store);
        store.claim(batch.id(), one, clock.instant());
        store.record(batch.id(), answered(0, true));
        store.record(batch.id(), answered(1, true));
        store.record(batch.id(), answered(2, true));
        Batch done = store.get(batch.id()).orElseThrow();
        done.moveTo(BatchStatus.FINALIZING, clock.instant());
        assertThat(store.update(done, BatchStatus.IN_PROGRESS)).isTrue();
        done.end(clock.instant(), "file-out", null);
        assertThat(store.update(done, BatchStatus.FINALIZING)).isTrue();

        Batch read = store.get(batch.id()).orElseThrow();
        assertThat(read.status()).isEqualTo(BatchStatus.COMPLETED);
        assertThat(read.claimedBy()).isNull();
        assertThat(read.toJson(JSON).get("output_file_id").asText()).isEqualTo("file-out");
        assertThat(read.toJson(JSON).get("request_counts").toString())
                .isEqualTo("{\"total\":3,\"completed\":3,\"failed\":0}");
        assertThat(store.claim(batch.id(), two, clock.instant())).isFalse();
        assertThat(store.claimable(two, clock.instant())).doesNotContain(batch.id());
        assertThat(store.inputsInUse()).doesNotContain(batch.inputFileId());

        // its results go after the retention; its counts stay with it
        clock.advance(Duration.ofHours(25));
        assertThat(store.expireResults(clock.instant(), Duration.ofHours(24))).isEqualTo(1);
        assertThat(store.get(batch.id()).orElseThrow().toJson(JSON).get("request_counts").get("completed").asInt())
                .isEqualTo(3);
    }

    @Test
    void should_offer_no_inbox_batch_to_claim_and_list_each_owners_newest_first() {
        BatchStore store = store();
        Batch inbox = batch(store, null, Map.of(Batch.SOURCE, Batch.INBOX));
        Batch older = batch(store, "team-list", Map.of());
        Batch newer = batch(store, "team-list", Map.of());
        batch(store, "team-other", Map.of());

        assertThat(store.claimable(one, clock.instant())).doesNotContain(inbox.id()).contains(older.id(), newer.id());
        assertThat(store.list("team-list")).extracting(Batch::id).containsExactly(newer.id(), older.id());
        assertThat(store.list(null)).extracting(Batch::id).containsExactly(inbox.id());
        assertThat(store.inputsInUse()).contains(inbox.inputFileId(), older.inputFileId());
        assertThat(store.get("batch_none")).isEmpty();
    }
}
