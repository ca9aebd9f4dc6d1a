package dev.keypool.it;

import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.IntStream;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.openai.client.OpenAIClient;
import com.openai.client.okhttp.OpenAIOkHttpClient;
import com.openai.core.http.HttpResponse;
import com.openai.models.batches.Batch;
import com.openai.models.batches.BatchCreateParams;
import com.openai.models.batches.BatchListParams;
import com.openai.models.files.FileCreateParams;
import com.openai.models.files.FileObject;
import com.openai.models.files.FilePurpose;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The OpenAI Batch API as the official Java SDK (com.openai:openai-java) uses it: upload a JSONL file, create a batch,
 * poll it, download the output. Nothing here was written for KeyPool but the base URL.
 */
class BatchApiSdkTest extends GatewayTestSupport {

    private static final ObjectMapper JSON = new ObjectMapper();
    private OpenAIClient client;

    @Override
    protected String keypoolYaml() {
        return """
                channels:
                  - name: primary
                    baseUrl: UPSTREAM
                    models: [gpt-test, embed-test]
                    keys:
                      - key: sk-one
                      - key: sk-two
                """;
    }

    private OpenAIClient client() {
        if (client == null) {
            client = OpenAIOkHttpClient.builder().baseUrl(url("/v1")).apiKey("client-token").maxRetries(0).build();
        }
        return client;
    }

    @AfterEach
    void closeClient() {
        if (client != null) {
            client.close();
        }
    }

    static String chatLine(String customId) {
        return "{\"custom_id\":\"" + customId + "\",\"method\":\"POST\",\"url\":\"/v1/chat/completions\",\"body\":"
                + "{\"model\":\"gpt-test\",\"messages\":[{\"role\":\"user\",\"content\":\"" + customId + "\"}]}}";
    }

    @Test
    void should_run_a_200_line_batch_and_give_one_output_line_per_custom_id() throws Exception {
        String jsonl = String.join("\n", IntStream.range(0, 200).mapToObj(i -> chatLine("req-" + i)).toList()) + "\n";
        FileObject file = client().files().create(FileCreateParams.builder()
                .file(jsonl.getBytes(StandardCharsets.UTF_8)).purpose(FilePurpose.BATCH).build());
        assertThat(file.id()).startsWith("file-");
        assertThat(file.bytes()).isEqualTo(jsonl.getBytes(StandardCharsets.UTF_8).length);
        assertThat(file.purpose()).isEqualTo(FileObject.Purpose.BATCH);

        Batch created = client().batches().create(BatchCreateParams.builder().inputFileId(file.id())
                .endpoint(BatchCreateParams.Endpoint.V1_CHAT_COMPLETIONS)
                .completionWindow(BatchCreateParams.CompletionWindow._24H).build());
        assertThat(created.id()).startsWith("batch_");
        assertThat(created.inputFileId()).isEqualTo(file.id());

        Batch done = await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(100))
                .until(() -> client().batches().retrieve(created.id()), b -> Batch.Status.COMPLETED.equals(b.status()));
        assertThat(done.requestCounts().orElseThrow().total()).isEqualTo(200);
        assertThat(done.requestCounts().orElseThrow().completed()).isEqualTo(200);
        assertThat(done.requestCounts().orElseThrow().failed()).isZero();
        assertThat(done.completedAt()).isPresent();
        assertThat(done.errorFileId()).isEmpty();

        List<String> lines;
        try (HttpResponse content = client().files().content(done.outputFileId().orElseThrow());
             InputStream body = content.body()) {
            lines = new String(body.readAllBytes(), StandardCharsets.UTF_8).lines().toList();
        }
        assertThat(lines).hasSize(200);
        Set<String> customIds = new HashSet<>();
        for (String line : lines) {
            JsonNode record = JSON.readTree(line);
            customIds.add(record.get("custom_id").asText());
            assertThat(record.get("id").asText()).startsWith("batch_req_");
            assertThat(record.get("error").isNull()).isTrue();
            assertThat(record.at("/response/status_code").asInt()).isEqualTo(200);
            assertThat(record.at("/response/body/choices/0/message/content").isTextual()).isTrue();
        }
        assertThat(customIds).isEqualTo(new HashSet<>(IntStream.range(0, 200).mapToObj(i -> "req-" + i).toList()));
        assertThat(upstream.totalHits()).isEqualTo(200);

        assertThat(client().batches().list(BatchListParams.builder().build()).data())
                .extracting(Batch::id).contains(created.id());
        assertThat(client().files().retrieve(done.outputFileId().orElseThrow()).purpose())
                .isEqualTo(FileObject.Purpose.BATCH_OUTPUT);
    }

    @Test
    void should_cancel_a_running_batch_and_keep_the_answers_it_had() throws Exception {
        upstream.holdAnswers();
        String jsonl = String.join("\n", IntStream.range(0, 100).mapToObj(i -> chatLine("c-" + i)).toList());
        FileObject file = client().files().create(FileCreateParams.builder()
                .file(jsonl.getBytes(StandardCharsets.UTF_8)).purpose(FilePurpose.BATCH).build());
        Batch created = client().batches().create(BatchCreateParams.builder().inputFileId(file.id())
                .endpoint(BatchCreateParams.Endpoint.V1_CHAT_COMPLETIONS)
                .completionWindow(BatchCreateParams.CompletionWindow._24H).build());
        // batch.concurrency (16) lines in flight, held by the provider
        await().atMost(Duration.ofSeconds(10)).until(() -> upstream.heldAnswers() == 16);

        Batch cancelling = client().batches().cancel(created.id());
        assertThat(cancelling.status()).isEqualTo(Batch.Status.CANCELLING);
        assertThat(cancelling.cancellingAt()).isPresent();
        upstream.releaseAnswers();

        Batch cancelled = await().atMost(Duration.ofSeconds(10)).until(() -> client().batches().retrieve(created.id()),
                b -> Batch.Status.CANCELLED.equals(b.status()));
        assertThat(cancelled.requestCounts().orElseThrow().completed()).isEqualTo(16);
        assertThat(cancelled.requestCounts().orElseThrow().total()).isEqualTo(100);
        assertThat(upstream.totalHits()).isEqualTo(16);
        try (HttpResponse content = client().files().content(cancelled.outputFileId().orElseThrow());
             InputStream body = content.body()) {
            assertThat(new String(body.readAllBytes(), StandardCharsets.UTF_8).lines()).hasSize(16);
        }
    }
}
