package dev.keypool.it;

import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.IntStream;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.openai.client.OpenAIClient;
import com.openai.client.okhttp.OpenAIOkHttpClient;
import com.openai.models.batches.Batch;
import com.openai.models.batches.BatchCreateParams;
import com.openai.models.files.FileCreateParams;
import com.openai.models.files.FileObject;
import com.openai.models.files.FilePurpose;
import dev.keypool.testing.BatchOutputs;
import dev.keypool.testing.FakeUpstream;
import dev.keypool.testing.GatewayProcess;
import dev.keypool.testing.PostgresServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Work is claimed, not assigned (design §12): two gateway processes on one PostgreSQL database; the one working a batch
 * is killed with SIGKILL mid-batch, with async tasks of its own queued, and the other takes them over once its leases
 * run out: the batch completes with exactly one output line per input line, no line checkpointed before the kill is
 * sent again (only the lines in flight at the kill may be), and every task gets its answer.
 */
@Tag("slow")
class BatchFailoverTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final int LINES = 600;
    private static final int TASKS = 200;
    private static final int CONCURRENCY = 4;

    private final FakeUpstream upstream = new FakeUpstream().delayAll(40);
    private final List<Process> gateways = new ArrayList<>();
    private final HttpClient http = HttpClient.newHttpClient();
    private PostgresServer postgres;

    @AfterEach
    void stop() {
        gateways.forEach(Process::destroyForcibly);
        upstream.close();
        if (postgres != null) {
            postgres.close();
        }
    }

    @Test
    void should_finish_the_batch_and_tasks_of_a_killed_instance_on_the_other_after_its_lease() throws Exception {
        postgres = PostgresServer.start();
        Path root = Files.createTempDirectory("keypool-failover-");
        String yaml = """
                channels:
                  - name: primary
                    baseUrl: %s
                    models: [gpt-test]
                    keys:
                      - key: sk-one
                      - key: sk-two
                database:
                  url: %s
                """.formatted(upstream.baseUrl(), postgres.url());
        int[] ports = {GatewayTestSupport.freePort(), GatewayTestSupport.freePort()};
        for (int i = 0; i < 2; i++) {
            Path home = Files.createDirectories(root.resolve("gateway-" + i));
            // C1 only and the serial collector: a gateway that boots in a fraction of the CPU on a shared machine
            gateways.add(GatewayProcess.start(home, "gateway", yaml, ports[i],
                    List.of("-Xmx256m", "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC"), Map.of(
                    "batch.concurrency", String.valueOf(CONCURRENCY), "batch.lease", "2s", "batch.heartbeat-ms", "400",
                    "batch.poll-ms", "200", "batch.inbox", "")));
        }
        for (int port : ports) {
            GatewayProcess.awaitStarted(port);
        }

        List<String> customIds = IntStream.range(0, LINES).mapToObj(i -> "line-" + i).toList();
        String jsonl = String.join("\n", customIds.stream().map(BatchApiSdkTest::chatLine).toList());
        FileObject file = client(ports[0]).files().create(FileCreateParams.builder()
                .file(jsonl.getBytes(StandardCharsets.UTF_8)).purpose(FilePurpose.BATCH).build());
        Batch created = client(ports[0]).batches().create(BatchCreateParams.builder().inputFileId(file.id())
                .endpoint(BatchCreateParams.Endpoint.V1_CHAT_COMPLETIONS)
                .completionWindow(BatchCreateParams.CompletionWindow._24H).build());

        // a hundred lines in, the instance working the batch gets tasks, then kill -9: no shutdown, no last write
        await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(20))
                .until(() -> BatchOutputs.checkpointed(postgres, created.id()).size() >= 100);
        // a lease names its instance's id: host and port
        String worker = postgres.column("SELECT lease_owner FROM batch_jobs WHERE id = ?", created.id()).get(0);
        int victim = worker.contains(":" + ports[0] + "-") ? 0 : 1;
        assertThat(worker).contains(":" + ports[victim] + "-");
        int survivor = 1 - victim;
        List<String> tasks = new ArrayList<>();
        for (int i = 0; i < TASKS; i++) {
            tasks.add(submitTask(ports[victim], "task-" + i));
        }
        gateways.get(victim).destroyForcibly().waitFor();
        Set<String> beforeKill = BatchOutputs.checkpointed(postgres, created.id());
        assertThat(beforeKill.size()).isBetween(100, LINES - 1);
        // tasks the killed instance had accepted and not answered: theirs to take over
        assertThat(postgres.column("SELECT id FROM batch_tasks WHERE finished_at IS NULL AND lease_owner = ?", worker)).isNotEmpty();

        Batch done = await().atMost(Duration.ofSeconds(90)).pollInterval(Duration.ofMillis(200))
                .until(() -> client(ports[survivor]).batches().retrieve(created.id()),
                        batch -> Batch.Status.COMPLETED.equals(batch.status()));
        assertThat(done.requestCounts().orElseThrow().completed()).isEqualTo(LINES);
        try (com.openai.core.http.HttpResponse content = client(ports[survivor]).files().content(done.outputFileId().orElseThrow());
             InputStream body = content.body()) {
            BatchOutputs.assertOneAnswerPerLine(new String(body.readAllBytes(), StandardCharsets.UTF_8), customIds);
        }
        // only the lines in flight at the kill may have gone out twice
        BatchOutputs.assertSentOnceBesidesInFlight(upstream, customIds, beforeKill, CONCURRENCY);

        for (String task : tasks) {
            JsonNode answered = await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(100))
                    .until(() -> task(ports[survivor], task), t -> t.path("status").asText().equals("completed"));
            assertThat(answered.at("/response/status_code").asInt()).isEqualTo(200);
        }
        Map<String, Integer> taskCalls = BatchOutputs.callsByContent(upstream);
        for (int i = 0; i < TASKS; i++) {
            assertThat(taskCalls.get("task-" + i)).as("provider calls of task-%d", i).isBetween(1, 2);
        }
        assertThat(Files.readString(root.resolve("gateway-" + survivor).resolve("gateway.log")))
                .contains("Batch " + created.id() + " (in_progress)");
    }

    private OpenAIClient client(int port) {
        return OpenAIOkHttpClient.builder().baseUrl("http://127.0.0.1:" + port + "/v1").apiKey("none").maxRetries(0).build();
    }

    private String submitTask(int port, String content) throws Exception {
        String body = "{\"model\":\"gpt-test\",\"messages\":[{\"role\":\"user\",\"content\":\"" + content + "\"}]}";
        HttpResponse<String> accepted = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port
                        + "/v1/chat/completions")).header("Content-Type", "application/json").header("X-KeyPool-Async", "true")
                .POST(HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(accepted.statusCode()).isEqualTo(202);
        return JSON.readTree(accepted.body()).get("id").asText();
    }

    private JsonNode task(int port, String id) throws Exception {
        return JSON.readTree(http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/v1/tasks/" + id))
                .build(), HttpResponse.BodyHandlers.ofString()).body());
    }
}
