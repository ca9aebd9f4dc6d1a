package dev.keypool.it;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Properties;
import java.util.stream.IntStream;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.openai.client.OpenAIClient;
import com.openai.client.okhttp.OpenAIOkHttpClient;
import com.openai.core.http.HttpResponse;
import com.openai.models.batches.Batch;
import com.openai.models.batches.BatchCreateParams;
import com.openai.models.files.FileCreateParams;
import com.openai.models.files.FilePurpose;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/** A batch still running when its 24 h window ends (by the gateway's clock) expires; its unrun lines get error lines. */
class BatchExpiryTest extends GatewayTestSupport {

    private static final ObjectMapper JSON = new ObjectMapper();
    /** Enough lines that writing their error lines, each forced to the disk, takes a while to watch. */
    private static final int LINES = 100;
    private OpenAIClient client;

    @Override
    protected String keypoolYaml() {
        // 95 % of 2 rpm: one batch line a minute; lines held back do not wait in line
        return """
                queue:
                  maxWait: 0s
                channels:
                  - name: primary
                    baseUrl: UPSTREAM
                    models: [gpt-test]
                    keys:
                      - key: sk-one
                        rpm: 2
                        rpd: 2
                """;
    }

    @Override
    protected Properties overrideProperties() {
        Properties p = super.overrideProperties();
        // one line in flight at a time: once the second line is back, held back for the key's day, none is in flight
        // when the clock passes the window (a line in flight then would find the new day's room and be sent)
        p.put("batch.concurrency", "1");
        return p;
    }

    @AfterEach
    void closeClient() {
        if (client != null) {
            client.close();
        }
    }

    @Test
    void should_expire_after_its_window_with_an_error_line_for_each_line_not_run() throws Exception {
        client = OpenAIOkHttpClient.builder().baseUrl(url("/v1")).apiKey("client-token").maxRetries(0).build();
        String jsonl = String.join("\n", IntStream.range(0, LINES).mapToObj(i -> BatchApiSdkTest.chatLine("e-" + i)).toList());
        String fileId = client.files().create(FileCreateParams.builder().file(jsonl.getBytes(StandardCharsets.UTF_8))
                .purpose(FilePurpose.BATCH).build()).id();
        String id = client.batches().create(BatchCreateParams.builder().inputFileId(fileId)
                .endpoint(BatchCreateParams.Endpoint.V1_CHAT_COMPLETIONS)
                .completionWindow(BatchCreateParams.CompletionWindow._24H).build()).id();
        await().atMost(Duration.ofSeconds(10)).until(() -> upstream.totalHits() == 1 && heldBack() >= 1);

        clock.advance(Duration.ofHours(24));
        // the first answer that is no longer in progress is expired with its error file named and readable
        Batch expired = await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(5))
                .until(() -> client.batches().retrieve(id), b -> !Batch.Status.IN_PROGRESS.equals(b.status()));
        assertThat(expired.status()).isEqualTo(Batch.Status.EXPIRED);
        assertThat(expired.errorFileId()).isPresent();
        assertThat(expired.expiredAt()).isPresent();
        assertThat(expired.requestCounts().orElseThrow().completed()).isEqualTo(1);
        assertThat(expired.requestCounts().orElseThrow().failed()).isEqualTo(LINES - 1);
        List<String> errors;
        try (HttpResponse content = client.files().content(expired.errorFileId().orElseThrow())) {
            errors = new String(content.body().readAllBytes(), StandardCharsets.UTF_8).lines().toList();
        }
        assertThat(errors).hasSize(LINES - 1);
        for (String line : errors) {
            JsonNode record = JSON.readTree(line);
            assertThat(record.at("/error/code").asText()).isEqualTo("batch_expired");
            assertThat(record.get("response").isNull()).isTrue();
        }
        assertThat(upstream.totalHits()).isEqualTo(1);
    }

    /** How many batch lines the gateway held back for the key's capacity, from /observe/metrics. */
    private double heldBack() throws Exception {
        return requestsCounted("outcome=\"quota_exhausted\"");
    }
}
