package dev.keypool.batch;

import java.util.EnumSet;
import java.util.Locale;
import java.util.Set;

/** The statuses of an OpenAI batch object, and the moves between them (one table, checked by {@link Batch#moveTo}). */
public enum BatchStatus {
    VALIDATING, IN_PROGRESS, FINALIZING, COMPLETED, FAILED, EXPIRED, CANCELLING, CANCELLED;

    /** As the OpenAI API spells it: {@code in_progress}. */
    public String apiName() {
        return name().toLowerCase(Locale.ROOT);
    }

    public static BatchStatus ofApiName(String name) {
        return valueOf(name.toUpperCase(Locale.ROOT));
    }

    /** Whether the batch is over: its lines will not run any more. */
    public boolean terminal() {
        return this == COMPLETED || this == FAILED || this == EXPIRED || this == CANCELLED;
    }

    /** The statuses this one may move to. */
    Set<BatchStatus> next() {
        return switch (this) {
            case VALIDATING -> EnumSet.of(IN_PROGRESS, FAILED, CANCELLING);
            case IN_PROGRESS -> EnumSet.of(FINALIZING, CANCELLING, EXPIRED);
            case FINALIZING -> EnumSet.of(COMPLETED, FAILED);
            case CANCELLING -> EnumSet.of(CANCELLED);
            case COMPLETED, FAILED, EXPIRED, CANCELLED -> EnumSet.noneOf(BatchStatus.class);
        };
    }
}
