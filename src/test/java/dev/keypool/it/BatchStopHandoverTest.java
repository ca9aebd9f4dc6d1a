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
import java.util.concurrent.CompletableFuture;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
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
import dev.keypool.testing.ClusterFixture;
import dev.keypool.testing.GatewayInstance;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A gateway stopped as an orchestrator stops it (SIGTERM) mid-batch gives up its leases (design §12): the other
 * instance takes up the batch and the tasks it had accepted at once, not after {@code batch.lease}, which is a minute
 * here. The batch completes with exactly one output line per input line, and nothing is sent twice.
 */
@Tag("slow")
class BatchStopHandoverTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final int LINES = 600;
    private static final int TASKS = 100;
    private static final int CONCURRENCY = 4;
    private static final Duration LEASE = Duration.ofSeconds(60);
    /** From the SIGTERM to the other instance's claim: a third of the lease. */
    private static final Duration HANDOVER = Duration.ofSeconds(20);

    @Test
    void should_hand_its_batch_and_tasks_to_the_other_instance_at_once_when_stopped(@TempDir Path dir) throws Exception {
        try (ClusterFixture cluster = ClusterFixture.start(dir)) {
            cluster.upstream.delayAll(40);
            List<ClusterFixture.Instance> gateways = cluster.startGateways(2, ClusterFixture.deployYaml(), Map.of(
                    "batch.lease", LEASE.toSeconds() + "s", "batch.heartbeat-ms", "1000", "batch.poll-ms", "200",
                    "batch.concurrency", String.valueOf(CONCURRENCY), "batch.inbox", ""),
                    cluster.deployEnvironment("sk-stop-one-2Hb6Kd9Fm4", "sk-stop-two-7Nv3Wq1Zx8"));
            List<String> customIds = IntStream.range(0, LINES).mapToObj(i -> "line-" + i).toList();
            String jsonl = String.join("\n", customIds.stream().map(BatchApiSdkTest::chatLine).toList()) + "\n";
            OpenAIClient first = client(gateways.get(0));
            FileObject file = first.files().create(FileCreateParams.builder()
                    .file(jsonl.getBytes(StandardCharsets.UTF_8)).purpose(FilePurpose.BATCH).build());
            String batchId = first.batches().create(BatchCreateParams.builder().inputFileId(file.id())
                    .endpoint(BatchCreateParams.Endpoint.V1_CHAT_COMPLETIONS)
                    .completionWindow(BatchCreateParams.CompletionWindow._24H).build()).id();
            first.close();

            // a hundred lines in, the instance working the batch (as the database names it) accepts tasks, and stops
            await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(20))
                    .until(() -> BatchOutputs.checkpointed(cluster.postgres, batchId).size() >= 100);
            String worker = leaseOwner(cluster, batchId);
            ClusterFixture.Instance stopped = gateways.stream().filter(i -> worker.contains(i.idSuffix() + "-"))
                    .findFirst().orElseThrow();
            ClusterFixture.Instance other = gateways.stream().filter(i -> i != stopped).findFirst().orElseThrow();
            List<String> tasks = submitTasks(stopped);
            long stopAt = System.nanoTime();
            cluster.stop(stopped);
            Set<String> beforeStop = BatchOutputs.checkpointed(cluster.postgres, batchId);
            assertThat(beforeStop.size()).isBetween(100, LINES - 1);
            // the tasks still queued there were not run by the stop: they are handed over
            Matcher given = Pattern.compile("Leases of " + Pattern.quote(worker) + " given up for the other instances to "
                    + "claim: batches 1, tasks not done (\\d+)").matcher(Files.readString(stopped.log()));
            assertThat(given.find()).as("the stopped instance's log").isTrue();
            assertThat(Integer.parseInt(given.group(1))).isPositive();

            // the other instance claims the batch and the tasks not done well before the lease would have run out
            await().atMost(HANDOVER.minusNanos(System.nanoTime() - stopAt)).pollInterval(Duration.ofMillis(50))
                    .until(() -> workedBy(cluster, batchId, other) && cluster.postgres.column("SELECT id FROM batch_tasks "
                            + "WHERE finished_at IS NULL AND (lease_owner IS NULL OR lease_owner = ?)", worker).isEmpty());
            System.out.printf("Batch and tasks handed over %d ms after the SIGTERM (lease %s)%n",
                    Duration.ofNanos(System.nanoTime() - stopAt).toMillis(), LEASE);

            OpenAIClient client = client(other);
            Batch done = await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(200))
                    .until(() -> client.batches().retrieve(batchId), b -> Batch.Status.COMPLETED.equals(b.status()));
            try (com.openai.core.http.HttpResponse content = client.files().content(done.outputFileId().orElseThrow());
                 InputStream body = content.body()) {
                BatchOutputs.assertOneAnswerPerLine(new String(body.readAllBytes(), StandardCharsets.UTF_8), customIds);
            }
            client.close();
            // a stop sends nothing twice: its lines in flight were answered and checkpointed before it gave them up
            BatchOutputs.assertSentOnceBesidesInFlight(cluster.upstream, customIds, beforeStop, 0);
            for (String task : tasks) {
                JsonNode answered = await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(100))
                        .until(() -> JSON.readTree(GatewayInstance.send(HttpRequest.newBuilder(
                                URI.create(other.url() + "/v1/tasks/" + task)).build()).body()),
                                t -> t.path("status").asText().equals("completed"));
                assertThat(answered.at("/response/status_code").asInt()).isEqualTo(200);
            }
            Map<String, Integer> calls = BatchOutputs.callsByContent(cluster.upstream);
            for (int i = 0; i < TASKS; i++) {
                assertThat(calls.get("task-" + i)).as("provider calls of task-%d", i).isEqualTo(1);
            }
        }
    }

    /** {@link #TASKS} async requests at once to {@code gateway}, each accepted (202): their task ids. */
    private static List<String> submitTasks(ClusterFixture.Instance gateway) throws Exception {
        HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
        List<CompletableFuture<HttpResponse<String>>> sent = new ArrayList<>();
        for (int i = 0; i < TASKS; i++) {
            sent.add(http.sendAsync(HttpRequest.newBuilder(URI.create(gateway.url() + "/v1/chat/completions"))
                    .header("Content-Type", "application/json").header("X-KeyPool-Async", "true")
                    .POST(HttpRequest.BodyPublishers.ofString("{\"model\":\"gpt-4o-mini\",\"messages\":[{\"role\":\"user\","
                            + "\"content\":\"task-" + i + "\"}]}")).build(), HttpResponse.BodyHandlers.ofString()));
        }
        List<String> ids = new ArrayList<>();
        for (CompletableFuture<HttpResponse<String>> accepted : sent) {
            assertThat(accepted.get().statusCode()).as(accepted.get().body()).isEqualTo(202);
            ids.add(JSON.readTree(accepted.get().body()).path("id").asText());
        }
        return ids;
    }

    /** Whether {@code gateway} holds the batch's lease, or has completed it already. */
    private static boolean workedBy(ClusterFixture cluster, String batchId, ClusterFixture.Instance gateway) {
        String owner = leaseOwner(cluster, batchId);
        return owner != null ? owner.contains(gateway.idSuffix() + "-") : cluster.postgres.column(
                "SELECT status FROM batch_jobs WHERE id = ?", batchId).get(0).equals("completed");
    }

    private static String leaseOwner(ClusterFixture cluster, String batchId) {
        return cluster.postgres.column("SELECT lease_owner FROM batch_jobs WHERE id = ?", batchId).get(0);
    }

    private static OpenAIClient client(ClusterFixture.Instance gateway) {
        return OpenAIOkHttpClient.builder().baseUrl(gateway.url() + "/v1").apiKey("none").maxRetries(0).build();
    }
}
