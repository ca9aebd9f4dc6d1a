package dev.keypool.batch;

import java.time.Duration;
import java.util.Objects;

/**
 * What the batch API keeps for each tenant, and for how long (design §12): the same for the stores on this instance's
 * disk and for those in the shared database.
 *
 * @param retention      how long a finished task's answer, a file without {@code expires_after} and a batch's results
 *                       are kept ({@code batch.retention})
 * @param maxQueuedTasks async tasks one tenant may have queued or running ({@code batch.max-queued-tasks})
 * @param maxStoredBytes bytes one tenant's tasks and files may take ({@code batch.max-stored-bytes})
 * @param maxFileBytes   the largest file an upload may bring ({@code batch.max-file-bytes})
 */
public record BatchLimits(Duration retention, int maxQueuedTasks, long maxStoredBytes, long maxFileBytes) {

    public BatchLimits {
        Objects.requireNonNull(retention, "retention");
        if (maxQueuedTasks < 1 || maxStoredBytes < 1) {
            throw new IllegalArgumentException("batch.max-queued-tasks and batch.max-stored-bytes must be at least 1, were "
                    + maxQueuedTasks + " and " + maxStoredBytes);
        }
    }
}
