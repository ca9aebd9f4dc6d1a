package dev.keypool.batch;

import java.time.Instant;
import java.util.List;
import java.util.Optional;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * Async tasks ({@code X-KeyPool-Async: true}) with their requests and answers: on this instance's disk
 * ({@link DiskTaskStore}), or in the database several instances share. A task not done is worked by the member that
 * holds its lease (the one that accepted it, or whoever claimed it after that one's lease ran out); the first answer
 * recorded is its answer. Per tenant, at most a set number of tasks wait or run, and a new one must fit in its storage:
 * both decided before anything is written.
 */
public interface TaskStore {

    /**
     * A new queued task with this request, written before it is returned, under {@code claimant}'s lease.
     *
     * @throws StorageLimitException when the owner has its most tasks not done, or the task would take it past its
     *                               storage; nothing is written then
     */
    AsyncTask submit(String owner, String endpoint, String api, byte[] request, Claimant claimant);

    /**
     * Whether {@code owner} has room for one more task of about {@code bytes}: the cheap check made before a request
     * is read. {@link #submit} decides.
     *
     * @throws StorageLimitException as {@link #submit} would
     */
    void checkRoom(String owner, long bytes);

    /** The request of a task not done yet. */
    byte[] request(String id);

    /**
     * The task is running on {@code claimant}: empty when it is done, gone, or under another member's lease now (that
     * one runs it).
     */
    Optional<AsyncTask> start(String id, Claimant claimant);

    /**
     * The task is done with this answer, unless it was done already (the first answer stays) or has expired meanwhile.
     * Counted in its owner's storage whatever its size (an answer is never refused).
     */
    Optional<AsyncTask> finish(String id, int statusCode, JsonNode body);

    /** The task, with its answer once done, unless there is none or its retention has passed. */
    Optional<AsyncTask> get(String id);

    /** Extends every lease {@code claimant} holds on tasks not done: its heartbeat. */
    void renew(Claimant claimant, Instant now);

    /**
     * Gives up every lease {@code claimant} holds on tasks not done (it stops): they are queued again, and any other
     * member may claim them at once. Returns how many.
     */
    int release(Claimant claimant);

    /**
     * Claims for {@code claimant} the tasks not done that are under no lease or another member's run out (at most
     * {@code max}); returns their ids, to run.
     */
    List<String> claim(Claimant claimant, Instant now, int max);

    /** Forgets the tasks whose retention has passed, and deletes them; returns how many. */
    int expire();
}
