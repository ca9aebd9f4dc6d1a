package dev.keypool.batch;

import java.time.Instant;
import java.util.Map;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class BatchTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Instant T0 = Instant.parse("2026-12-01T00:00:00Z");

    private static Batch batch() {
        return new Batch("batch_1", "/v1/chat/completions", "file-1", "team-a", T0, Map.of("job", "nightly"));
    }

    @Test
    void should_move_only_along_the_allowed_transitions() {
        Batch batch = batch();
        assertThat(batch.moveTo(BatchStatus.COMPLETED, T0)).isFalse();
        assertThat(batch.moveTo(BatchStatus.IN_PROGRESS, T0.plusSeconds(1))).isTrue();
        assertThat(batch.moveTo(BatchStatus.VALIDATING, T0)).isFalse();
        assertThat(batch.moveTo(BatchStatus.CANCELLING, T0.plusSeconds(2))).isTrue();
        assertThat(batch.moveTo(BatchStatus.COMPLETED, T0)).isFalse();
        assertThat(batch.moveTo(BatchStatus.CANCELLED, T0.plusSeconds(3))).isTrue();
        assertThat(batch.moveTo(BatchStatus.CANCELLING, T0)).isFalse();
        assertThat(batch.status()).isEqualTo(BatchStatus.CANCELLED);
    }

    @Test
    void should_answer_the_openai_batch_object_with_every_field() {
        Batch batch = batch();
        batch.lines(3);
        batch.moveTo(BatchStatus.IN_PROGRESS, T0.plusSeconds(5));
        batch.counts(1, 1);
        ObjectNode json = batch.toJson(JSON);
        assertThat(json.get("object").asText()).isEqualTo("batch");
        assertThat(json.get("status").asText()).isEqualTo("in_progress");
        assertThat(json.get("in_progress_at").asLong()).isEqualTo(T0.getEpochSecond() + 5);
        assertThat(json.get("expires_at").asLong()).isEqualTo(T0.getEpochSecond() + 24 * 3600);
        assertThat(json.get("completed_at").isNull()).isTrue();
        assertThat(json.get("output_file_id").isNull()).isTrue();
        assertThat(json.get("completion_window").asText()).isEqualTo("24h");
        assertThat(json.get("request_counts").toString()).isEqualTo("{\"total\":3,\"completed\":1,\"failed\":1}");
        assertThat(json.at("/metadata/job").asText()).isEqualTo("nightly");
        assertThat(json.has("owner")).isFalse();
    }

    @Test
    void should_end_with_its_files_expired_while_in_progress_completed_once_finalizing_cancelled_once_cancelling() {
        Batch late = batch();
        late.moveTo(BatchStatus.IN_PROGRESS, T0);
        assertThat(late.end(T0.plusSeconds(9), null, "file-err")).isEqualTo(BatchStatus.EXPIRED);
        assertThat(late.toJson(JSON).get("error_file_id").asText()).isEqualTo("file-err");
        assertThat(late.toJson(JSON).get("expired_at").asLong()).isEqualTo(T0.getEpochSecond() + 9);

        Batch finalizing = batch();
        finalizing.moveTo(BatchStatus.IN_PROGRESS, T0);
        finalizing.moveTo(BatchStatus.FINALIZING, T0);
        assertThat(finalizing.end(T0, "file-out", null)).isEqualTo(BatchStatus.COMPLETED);
        assertThat(finalizing.toJson(JSON).get("output_file_id").asText()).isEqualTo("file-out");

        Batch cancelling = batch();
        cancelling.moveTo(BatchStatus.CANCELLING, T0);
        assertThat(cancelling.end(T0, "file-out", null)).isEqualTo(BatchStatus.CANCELLED);

        // one already over keeps its status and files
        assertThat(cancelling.end(T0, null, "file-other")).isEqualTo(BatchStatus.CANCELLED);
        assertThat(cancelling.toJson(JSON).get("output_file_id").asText()).isEqualTo("file-out");
        assertThat(cancelling.toJson(JSON).get("error_file_id").isNull()).isTrue();
    }

    @Test
    void should_read_back_what_it_stored() {
        Batch batch = batch();
        batch.lines(2);
        batch.moveTo(BatchStatus.IN_PROGRESS, T0.plusSeconds(1));
        batch.moveTo(BatchStatus.FINALIZING, T0.plusSeconds(2));
        batch.end(T0.plusSeconds(3), "file-out", null);
        Batch read = Batch.fromStored(batch.toStored(JSON));
        assertThat(read.owner()).isEqualTo("team-a");
        assertThat(read.toJson(JSON)).isEqualTo(batch.toJson(JSON));
    }
}
