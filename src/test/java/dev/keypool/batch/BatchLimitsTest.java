package dev.keypool.batch;

import java.time.Duration;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The batch limits refuse a tenant no room at all: a startup error naming the settings, not a store that refuses everything. */
class BatchLimitsTest {

    @Test
    void should_refuse_no_queued_task_or_no_stored_byte_naming_the_settings() {
        assertThatThrownBy(() -> new BatchLimits(Duration.ofHours(24), 0, 1024, 1024))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("batch.max-queued-tasks");
        assertThatThrownBy(() -> new BatchLimits(Duration.ofHours(24), 10, 0, 1024))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("batch.max-stored-bytes");
    }
}
