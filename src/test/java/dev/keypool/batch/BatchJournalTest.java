package dev.keypool.batch;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;

class BatchJournalTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path dir;

    private static BatchLine line(int index) {
        return new BatchLine(index, "c-" + index, "/v1/chat/completions", "{}".getBytes(StandardCharsets.UTF_8), null);
    }

    @Test
    void should_read_back_its_results_after_a_reopen() {
        Path file = dir.resolve("b.journal.jsonl");
        try (BatchJournal journal = new BatchJournal(file, JSON)) {
            assertThat(journal.record(BatchResult.answered(line(0), 200, "req_1", JSON.createObjectNode(), JSON))).isTrue();
            assertThat(journal.record(BatchResult.failed(line(2), "invalid_request", "bad", JSON))).isTrue();
            assertThat(journal.record(BatchResult.answered(line(0), 200, "req_2", JSON.createObjectNode(), JSON))).isFalse();
        }
        try (BatchJournal reopened = new BatchJournal(file, JSON)) {
            assertThat(reopened.results()).containsOnlyKeys(0, 2);
            assertThat(reopened.results().get(0).ok()).isTrue();
            assertThat(reopened.results().get(2).ok()).isFalse();
            assertThat(reopened.results().get(2).record().at("/error/message").asText()).isEqualTo("bad");
            assertThat(reopened.done(1)).isFalse();
        }
    }

    @Test
    void should_drop_a_last_entry_cut_short_by_a_kill_and_append_after_the_last_whole_one() throws Exception {
        Path file = dir.resolve("b.journal.jsonl");
        try (BatchJournal journal = new BatchJournal(file, JSON)) {
            journal.record(BatchResult.answered(line(0), 200, "req_1", JSON.createObjectNode(), JSON));
        }
        Files.writeString(file, "{\"line\":1,\"ok\":tr", StandardOpenOption.APPEND);
        try (BatchJournal reopened = new BatchJournal(file, JSON)) {
            assertThat(reopened.results()).containsOnlyKeys(0);
            reopened.record(BatchResult.answered(line(1), 200, "req_2", JSON.createObjectNode(), JSON));
        }
        assertThat(Files.readAllLines(file)).hasSize(2);
        try (BatchJournal again = new BatchJournal(file, JSON)) {
            assertThat(again.results()).containsOnlyKeys(0, 1);
        }
    }
}
