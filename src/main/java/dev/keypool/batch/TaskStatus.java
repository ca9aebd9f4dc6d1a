package dev.keypool.batch;

import java.util.Locale;

/** The statuses of an async task ({@code X-KeyPool-Async: true}). */
public enum TaskStatus {
    QUEUED, IN_PROGRESS, COMPLETED, FAILED;

    public String apiName() {
        return name().toLowerCase(Locale.ROOT);
    }
}
