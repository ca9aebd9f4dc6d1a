package dev.keypool.it;

import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.stream.IntStream;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.openai.client.OpenAIClient;
import com.openai.client.okhttp.OpenAIOkHttpClient;
import com.openai.core.http.HttpResponseFor;
import com.openai.errors.NotFoundException;
import com.openai.models.batches.Batch;
import com.openai.models.batches.BatchCreateParams;
import com.openai.models.batches.BatchListParams;
import com.openai.models.chat.completions.ChatCompletion;
import com.openai.models.chat.completions.ChatCompletionCreateParams;
import com.openai.models.files.FileCreateParams;
import com.openai.models.files.FileObject;
import com.openai.models.files.FilePurpose;
import dev.keypool.testing.BatchOutputs;
import dev.keypool.testing.ClusterFixture;
import dev.keypool.testing.GatewayInstance;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * The Batch API and async tasks as the official OpenAI SDK uses them, through Debian's nginx on deploy/nginx.conf in
 * front of three gateway processes on the deployment files' keypool.yaml (with two tenants), sharing a real
 * redis-server and PostgreSQL (design §12): the upload, the batch, its polls and its output go to whichever instance
 * nginx picks; the instance holding the batch's lease is killed with SIGKILL mid-batch, with tasks of its own, and the
 * batch completes on the others with exactly one output line per input line, the tasks with their answers. Only the
 * tenant that owns them sees them.
 */
@Tag("slow")
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ClusterBatchTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final int LINES = 600;
    private static final int TASKS = 150;
    private static final int CONCURRENCY = 4;
    private static final String TEAM_A = "tenant-a-token-7Rk2Vq9Xw4Lm";
    private static final String TEAM_B = "tenant-b-token-3Jd8Pz5Nc1Hs";
    private static final String TENANTS = """
            tenants:
              - name: team-a
                token: ${TEAM_A_TOKEN}
              - name: team-b
                token: ${TEAM_B_TOKEN}
            """;

    private ClusterFixture cluster;
    private OpenAIClient teamA;
    private OpenAIClient teamB;

    @BeforeAll
    void start(@TempDir Path dir) {
        cluster = ClusterFixture.start(dir);
        // a line takes 40 ms at the provider: the batch runs for seconds, long enough to be cut in the middle
        cluster.upstream.delayAll(40);
        Map<String, String> environment = new HashMap<>(cluster.deployEnvironment("sk-batch-one-5Tg7Ub2Wc9", "sk-batch-two-8Qf1Ye6Ri3"));
        environment.put("TEAM_A_TOKEN", TEAM_A);
        environment.put("TEAM_B_TOKEN", TEAM_B);
        // leases of a few seconds: a killed instance's work moves within the test's patience
        cluster.startGateways(3, ClusterFixture.deployYaml() + TENANTS, Map.of("batch.lease", "3s",
                "batch.heartbeat-ms", "500", "batch.poll-ms", "200", "batch.concurrency", String.valueOf(CONCURRENCY),
                "batch.inbox", ""), environment);
        cluster.startBalancer();
        teamA = client(TEAM_A);
        teamB = client(TEAM_B);
    }

    @AfterAll
    void stop() {
        for (OpenAIClient client : new OpenAIClient[] {teamA, teamB}) {
            if (client != null) {
                client.close();
            }
        }
        if (cluster != null) {
            cluster.close();
        }
    }

    @Test
    void should_complete_a_batch_and_tasks_through_nginx_when_the_instance_working_them_is_killed() throws Exception {
        List<String> customIds = IntStream.range(0, LINES).mapToObj(i -> "line-" + i).toList();
        String jsonl = String.join("\n", customIds.stream().map(BatchApiSdkTest::chatLine).toList()) + "\n";
        FileObject file = teamA.files().create(FileCreateParams.builder()
                .file(jsonl.getBytes(StandardCharsets.UTF_8)).purpose(FilePurpose.BATCH).build());
        Batch created = teamA.batches().create(BatchCreateParams.builder().inputFileId(file.id())
                .endpoint(BatchCreateParams.Endpoint.V1_CHAT_COMPLETIONS)
                .completionWindow(BatchCreateParams.CompletionWindow._24H).build());

        // a hundred lines in, the provider holds its answers while tasks go through nginx (a third of them to each
        // instance); then kill -9 of the instance that holds the batch's lease, as the database names it
        await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(20))
                .until(() -> BatchOutputs.checkpointed(cluster.postgres, created.id()).size() >= 100);
        cluster.upstream.holdAnswers();
        List<String> tasks = submitTasks();
        String worker = cluster.postgres.column("SELECT lease_owner FROM batch_jobs WHERE id = ?", created.id()).get(0);
        ClusterFixture.Instance victim = cluster.instances().stream()
                .filter(i -> worker.contains(i.idSuffix() + "-")).findFirst().orElseThrow();
        cluster.kill(victim);
        Set<String> beforeKill = BatchOutputs.checkpointed(cluster.postgres, created.id());
        assertThat(beforeKill.size()).isBetween(100, LINES - 1);
        assertThat(cluster.postgres.column("SELECT id FROM batch_tasks WHERE finished_at IS NULL AND lease_owner = ?",
                worker)).as("tasks the killed instance had accepted and not answered").isNotEmpty();
        int answeredBeforeKill = cluster.answered().size();
        cluster.upstream.releaseAnswers();

        // every poll, through whichever instance nginx picks, answers: no retry by the SDK
        Batch done = await().atMost(Duration.ofSeconds(90)).pollInterval(Duration.ofMillis(200))
                .until(() -> teamA.batches().retrieve(created.id()), batch -> Batch.Status.COMPLETED.equals(batch.status()));
        assertThat(done.requestCounts().orElseThrow().completed()).isEqualTo(LINES);
        assertThat(done.requestCounts().orElseThrow().failed()).isZero();
        try (com.openai.core.http.HttpResponse content = teamA.files().content(done.outputFileId().orElseThrow());
             InputStream body = content.body()) {
            BatchOutputs.assertOneAnswerPerLine(new String(body.readAllBytes(), StandardCharsets.UTF_8), customIds);
        }
        BatchOutputs.assertSentOnceBesidesInFlight(cluster.upstream, customIds, beforeKill, CONCURRENCY);
        assertThat(cluster.instances()).filteredOn(i -> i != victim).anySatisfy(survivor ->
                assertThat(Files.readString(survivor.log())).contains("Batch " + created.id() + " (in_progress) on"));

        for (String task : tasks) {
            JsonNode answered = await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(100))
                    .until(() -> JSON.readTree(task(task, TEAM_A).body()), t -> t.path("status").asText().equals("completed"));
            assertThat(answered.at("/response/status_code").asInt()).isEqualTo(200);
        }
        Map<String, Integer> calls = BatchOutputs.callsByContent(cluster.upstream);
        for (int i = 0; i < TASKS; i++) {
            assertThat(calls.get("task-" + i)).as("provider calls of task-%d", i).isBetween(1, 2);
        }

        // the owner's only: another tenant gets 404 through nginx, and no sight of it in its lists
        assertThatThrownBy(() -> teamB.batches().retrieve(created.id())).isInstanceOf(NotFoundException.class);
        assertThat(teamB.batches().list(BatchListParams.builder().build()).data()).extracting(Batch::id)
                .doesNotContain(created.id());
        assertThat(task(tasks.get(0), TEAM_B).statusCode()).isEqualTo(404);

        // nginx sent the API calls round robin to every instance, and after the kill to the two others only
        List<ClusterFixture.Answered> answered = cluster.answered();
        List<ClusterFixture.Answered> api = answered.stream().filter(a -> a.uri().startsWith("/v1/")).toList();
        assertThat(api).allSatisfy(a -> {
            assertThat(a.status()).as("%s %s", a.method(), a.uri()).isLessThan(500);
            assertThat(a.servedBy()).isNotEmpty();
        });
        assertThat(api.stream().map(a -> a.servedBy().get(a.servedBy().size() - 1)).distinct())
                .containsExactlyInAnyOrderElementsOf(cluster.instances());
        assertThat(answered.subList(answeredBeforeKill, answered.size()))
                .allSatisfy(a -> assertThat(a.servedBy().get(a.servedBy().size() - 1)).isNotEqualTo(victim));
    }

    /** {@link #TASKS} async requests at once through nginx, each accepted (202): their task ids. */
    private List<String> submitTasks() throws Exception {
        List<CompletableFuture<HttpResponseFor<ChatCompletion>>> sent = new ArrayList<>();
        for (int i = 0; i < TASKS; i++) {
            sent.add(teamA.async().chat().completions().withRawResponse().create(ChatCompletionCreateParams.builder()
                    .model("gpt-4o-mini").addUserMessage("task-" + i).putAdditionalHeader("X-KeyPool-Async", "true")
                    .build()));
        }
        List<String> ids = new ArrayList<>();
        for (CompletableFuture<HttpResponseFor<ChatCompletion>> accepted : sent) {
            try (HttpResponseFor<ChatCompletion> response = accepted.get()) {
                String body = new String(response.body().readAllBytes(), StandardCharsets.UTF_8);
                assertThat(response.statusCode()).as(body).isEqualTo(202);
                ids.add(JSON.readTree(body).path("id").asText());
            }
        }
        return ids;
    }

    private HttpResponse<String> task(String id, String token) {
        return GatewayInstance.send(HttpRequest.newBuilder(URI.create(cluster.balancerUrl() + "/v1/tasks/" + id))
                .header("Authorization", "Bearer " + token).timeout(Duration.ofSeconds(30)).build());
    }

    private OpenAIClient client(String token) {
        return OpenAIOkHttpClient.builder().baseUrl(cluster.balancerUrl() + "/v1").apiKey(token).maxRetries(0).build();
    }
}
