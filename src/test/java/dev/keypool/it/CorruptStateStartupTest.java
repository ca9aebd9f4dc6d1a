package dev.keypool.it;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Properties;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.keypool.batch.AsyncTask;
import dev.keypool.batch.BatchLimits;
import dev.keypool.batch.Claimant;
import dev.keypool.batch.DiskTaskStore;
import dev.keypool.batch.TenantStorage;
import org.apache.logging.log4j.Level;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * One unreadable task, batch or file object under state.dir/batch (a disk that filled up, a hand edit) costs that
 * one only: the gateway starts, says once which file it skipped (WARN), serves requests and the tasks it could read.
 */
class CorruptStateStartupTest extends GatewayTestSupport {

    private static final ObjectMapper JSON = new ObjectMapper();
    private Path batch;
    private String goodTask;

    @Override
    protected String keypoolYaml() {
        return """
                channels:
                  - name: primary
                    baseUrl: UPSTREAM
                    models: [gpt-test]
                    keys:
                      - key: sk-one
                """;
    }

    /** What a gateway stopped earlier left, next to three files torn or garbled. */
    @Override
    protected Properties overrideProperties() {
        Properties p = super.overrideProperties();
        batch = Path.of(p.getProperty("state.dir")).resolve("batch");
        try {
            DiskTaskStore earlier = new DiskTaskStore(batch.resolve("tasks"), JSON, clock,
                    new BatchLimits(Duration.ofHours(24), 10, 1_000_000, 1_000_000), new TenantStorage(1_000_000));
            AsyncTask task = earlier.submit(null, "chat/completions", "chat", chatBody("gpt-test").getBytes(StandardCharsets.UTF_8),
                    new Claimant("earlier", Duration.ofSeconds(30)));
            earlier.finish(task.id(), 200, JSON.createObjectNode().put("answer", "kept"));
            goodTask = task.id();
            Files.writeString(batch.resolve("tasks/task_000000000000000000000bad.json"), "{\"owner\":nul");
            Files.createDirectories(batch.resolve("batches"));
            Files.write(batch.resolve("batches/batch_000000000000000000000bad.batch.json"), new byte[] {0, 1, 2, (byte) 0xff});
            Files.createDirectories(batch.resolve("files"));
            Files.writeString(batch.resolve("files/file-000000000000000000000bad.json"), "[]");
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
        return p;
    }

    @Test
    void should_start_skip_each_unreadable_file_with_one_warning_and_serve_on() throws Exception {
        assertThat(chat("gpt-test").statusCode()).isEqualTo(200);
        assertThat(JSON.readTree(get("/v1/tasks/" + goodTask).body()).at("/response/body/answer").asText()).isEqualTo("kept");
        for (String skipped : new String[] {"task_000000000000000000000bad.json", "batch_000000000000000000000bad.batch.json",
                "file-000000000000000000000bad.json"}) {
            assertThat(logs.events()).filteredOn(l -> l.text().contains(skipped))
                    .singleElement().satisfies(l -> assertThat(l.level()).isEqualTo(Level.WARN));
        }
    }
}
