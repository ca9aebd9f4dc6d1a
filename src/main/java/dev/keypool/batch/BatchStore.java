package dev.keypool.batch;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * The batches, their lines' results (checkpoints) and who works each one (design §12): on this instance's disk
 * ({@link DiskBatchStore}), or in the database several instances share. Every batch handed out is a copy, with the
 * counts of its checkpoints and the member whose lease it is under; a change counts once {@link #update} has stored it.
 * <p>
 * A batch is worked by the member that holds its lease, as a partition of a Kafka consumer group is: claimed, renewed
 * by the member's heartbeat, and claimable by any other member once it runs out. A line's result is recorded once:
 * a second result of the same line (a line sent twice) is refused, so a line with a result is never sent again.
 */
public interface BatchStore extends AutoCloseable {

    /** Stores a new batch; {@code claimant}, when not null, holds its lease from now on. */
    void create(Batch batch, Claimant claimant, Instant now);

    /** The batch {@code id}, as stored now. */
    Optional<Batch> get(String id);

    /** The batches of {@code owner} (all, without tenants), newest first. */
    List<Batch> list(String owner);

    /**
     * Stores {@code batch} (its status, times, files, total and errors) with the counts of its checkpoints, if its stored
     * status is still {@code expected}; false (nothing written) when another change came first, e.g. a cancel through
     * another instance: read it again.
     */
    boolean update(Batch batch, BatchStatus expected);

    /** Records a line's result; false (nothing written) when the line had one already. */
    boolean record(String batchId, BatchResult result);

    /** The lines of the batch that have a result. */
    Set<Integer> done(String batchId);

    /** Every result of the batch, in input order. */
    List<BatchResult> results(String batchId);

    /**
     * Takes the lease of a batch not over, for {@code claimant} until its lease length from {@code now}: when it is
     * under no lease, under the claimant's own, or under one run out. False when another member holds it, or it is over.
     */
    boolean claim(String batchId, Claimant claimant, Instant now);

    /** Extends every lease {@code claimant} holds on batches not over: its heartbeat. */
    void renew(Claimant claimant, Instant now);

    /**
     * Gives up every lease {@code claimant} holds on batches not over (it stops): any other member may claim them at
     * once, and runs their lines without a result. Returns how many.
     */
    int release(Claimant claimant);

    /**
     * The ids of the batches not over that another member than {@code claimant} may claim now: under no lease or one
     * run out. Not those of a file inbox: their file, on one instance's disk, takes them up again.
     */
    List<String> claimable(Claimant claimant, Instant now);

    /** The input files of the batches not over yet: they must stay while their batch may still read them. */
    Set<String> inputsInUse();

    /**
     * Deletes the checkpoints of batches over for {@code retention} or longer by {@code now} (their results are in the
     * output and error files); returns of how many batches.
     */
    int expireResults(Instant now, Duration retention);

    @Override
    void close();
}
