package dev.keypool.it;

import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
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
import com.openai.models.batches.BatchListParams;
import com.openai.models.files.FileCreateParams;
import com.openai.models.files.FileObject;
import com.openai.models.files.FilePurpose;
import dev.keypool.testing.FakeUpstream;
import dev.keypool.testing.GatewayInstance;
import dev.keypool.testing.MutableClock;
import dev.keypool.testing.PostgresServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Two gateways on one PostgreSQL database, as two instances behind a load balancer (design §12): a batch created through
 * one is read, downloaded and cancelled through the other, a task submitted through one is polled on the other, and
 * another tenant gets 404 for each on both. Both instances look for batches to claim: each line still reaches the
 * provider once.
 */
@Tag("slow")
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class SharedBatchStoreTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    private final MutableClock clock = new MutableClock();
    private PostgresServer postgres;
    private FakeUpstream upstream;
    private GatewayInstance a;
    private GatewayInstance b;
    private final Map<String, OpenAIClient> clients = new HashMap<>();

    @BeforeAll
    void start() throws Exception {
        postgres = PostgresServer.start();
        upstream = new FakeUpstream();
        String yaml = """
                channels:
                  - name: primary
                    baseUrl: %s
                    models: [gpt-test]
                    keys:
                      - key: sk-one
                      - key: sk-two
                tenants:
                  - name: team-a
                    token: token-a
                  - name: team-b
                    token: token-b
                database:
                  url: %s
                """.formatted(upstream.baseUrl(), postgres.url());
        Path dir = Files.createTempDirectory("keypool-shared-batches-");
        // no file inbox: the repository's batch/inbox is no test's
        a = GatewayInstance.start(dir, "a", yaml, clock, Map.of("batch.inbox", ""));
        b = GatewayInstance.start(dir, "b", yaml, clock, Map.of("batch.inbox", ""));
    }

    @AfterAll
    void stop() {
        clients.values().forEach(OpenAIClient::close);
        b.close();
        a.close();
        upstream.close();
        postgres.close();
    }

    @BeforeEach
    void forgetUpstream() {
        upstream.restore();
    }

    private OpenAIClient client(GatewayInstance gateway, String token) {
        return clients.computeIfAbsent(gateway.port() + token, k -> OpenAIOkHttpClient.builder()
                .baseUrl(gateway.baseUrl() + "/v1").apiKey(token).maxRetries(0).build());
    }

    private Batch batchOf(GatewayInstance gateway, String token, String prefix, int lines) {
        String jsonl = String.join("\n", IntStream.range(0, lines).mapToObj(i -> BatchApiSdkTest.chatLine(prefix + i)).toList());
        FileObject file = client(gateway, token).files().create(FileCreateParams.builder()
                .file(jsonl.getBytes(StandardCharsets.UTF_8)).purpose(FilePurpose.BATCH).build());
        return client(gateway, token).batches().create(BatchCreateParams.builder().inputFileId(file.id())
                .endpoint(BatchCreateParams.Endpoint.V1_CHAT_COMPLETIONS)
                .completionWindow(BatchCreateParams.CompletionWindow._24H).build());
    }

    private static int status(GatewayInstance gateway, String method, String path, String token) {
        return gateway.send(HttpRequest.newBuilder(URI.create(gateway.baseUrl() + path))
                .header("Authorization", "Bearer " + token).timeout(Duration.ofSeconds(30))
                .method(method, HttpRequest.BodyPublishers.noBody()).build()).statusCode();
    }

    /** The provider calls per custom_id (each line's message is its custom_id). */
    private Map<String, Integer> callsByCustomId(String prefix) throws Exception {
        Map<String, Integer> calls = new HashMap<>();
        for (FakeUpstream.Received received : upstream.received()) {
            String content = JSON.readTree(received.body()).at("/messages/0/content").asText();
            if (content.startsWith(prefix)) {
                calls.merge(content, 1, Integer::sum);
            }
        }
        return calls;
    }

    @Test
    void should_read_and_download_on_one_instance_a_batch_created_on_the_other() throws Exception {
        Batch created = batchOf(a, "token-a", "shared-", 40);

        Batch done = await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(100))
                .until(() -> client(b, "token-a").batches().retrieve(created.id()),
                        batch -> Batch.Status.COMPLETED.equals(batch.status()));
        assertThat(done.requestCounts().orElseThrow().completed()).isEqualTo(40);
        List<String> lines;
        try (com.openai.core.http.HttpResponse content = client(b, "token-a").files().content(done.outputFileId().orElseThrow());
             InputStream body = content.body()) {
            lines = new String(body.readAllBytes(), StandardCharsets.UTF_8).lines().toList();
        }
        assertThat(lines).hasSize(40);
        Set<String> customIds = new HashSet<>();
        for (String line : lines) {
            customIds.add(JSON.readTree(line).get("custom_id").asText());
        }
        assertThat(customIds).hasSize(40);
        // both instances looked for batches to claim; one worked it: no line went out twice
        Map<String, Integer> calls = callsByCustomId("shared-");
        assertThat(calls).hasSize(40);
        assertThat(calls.values()).containsOnly(1);
        assertThat(client(b, "token-a").batches().list(BatchListParams.builder().build()).data())
                .extracting(Batch::id).contains(created.id());

        // the other tenant sees none of it, on either instance
        for (GatewayInstance gateway : List.of(a, b)) {
            assertThat(status(gateway, "GET", "/v1/batches/" + created.id(), "token-b")).isEqualTo(404);
            assertThat(status(gateway, "POST", "/v1/batches/" + created.id() + "/cancel", "token-b")).isEqualTo(404);
            assertThat(status(gateway, "GET", "/v1/files/" + created.inputFileId(), "token-b")).isEqualTo(404);
            assertThat(status(gateway, "GET", "/v1/files/" + done.outputFileId().orElseThrow() + "/content", "token-b"))
                    .isEqualTo(404);
            assertThat(client(gateway, "token-b").batches().list(BatchListParams.builder().build()).data())
                    .extracting(Batch::id).doesNotContain(created.id());
        }
    }

    @Test
    void should_cancel_through_one_instance_a_batch_the_other_may_be_running() throws Exception {
        upstream.holdAnswers();
        Batch created = batchOf(a, "token-a", "cancel-", 100);
        // batch.concurrency (16) lines in flight on whichever instance claimed the batch, held by the provider
        await().atMost(Duration.ofSeconds(20)).until(() -> upstream.heldAnswers() == 16);

        Batch cancelling = client(b, "token-a").batches().cancel(created.id());
        assertThat(cancelling.status()).isEqualTo(Batch.Status.CANCELLING);
        upstream.releaseAnswers();

        Batch cancelled = await().atMost(Duration.ofSeconds(20)).until(
                () -> client(a, "token-a").batches().retrieve(created.id()), batch -> Batch.Status.CANCELLED.equals(batch.status()));
        assertThat(cancelled.requestCounts().orElseThrow().completed()).isEqualTo(16);
        assertThat(callsByCustomId("cancel-")).hasSize(16);
        assertThat(client(b, "token-a").batches().retrieve(created.id()).status()).isEqualTo(Batch.Status.CANCELLED);
    }

    @Test
    void should_answer_on_one_instance_a_task_submitted_on_the_other() throws Exception {
        HttpResponse<String> accepted = a.send(HttpRequest.newBuilder(URI.create(a.baseUrl() + "/v1/chat/completions"))
                .header("Content-Type", "application/json").header("Authorization", "Bearer token-a")
                .header("X-KeyPool-Async", "true").timeout(Duration.ofSeconds(30))
                .POST(HttpRequest.BodyPublishers.ofString(GatewayTestSupport.chatBody("gpt-test"))).build());
        assertThat(accepted.statusCode()).isEqualTo(202);
        String id = JSON.readTree(accepted.body()).get("id").asText();

        JsonNode done = await().atMost(Duration.ofSeconds(20)).until(() -> JSON.readTree(b.send(HttpRequest.newBuilder(
                        URI.create(b.baseUrl() + "/v1/tasks/" + id)).header("Authorization", "Bearer token-a").build()).body()),
                task -> task.path("status").asText().equals("completed"));
        assertThat(done.at("/response/status_code").asInt()).isEqualTo(200);
        assertThat(done.at("/response/body/choices/0/message/content").isTextual()).isTrue();
        assertThat(status(b, "GET", "/v1/tasks/" + id, "token-b")).isEqualTo(404);
        assertThat(status(a, "GET", "/v1/tasks/" + id, "token-b")).isEqualTo(404);
    }
}
