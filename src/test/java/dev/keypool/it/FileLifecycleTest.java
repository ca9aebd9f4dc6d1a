package dev.keypool.it;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Properties;
import java.util.stream.IntStream;
import java.util.stream.Stream;

import com.openai.client.OpenAIClient;
import com.openai.client.okhttp.OpenAIOkHttpClient;
import com.openai.errors.NotFoundException;
import com.openai.errors.RateLimitException;
import com.openai.models.batches.Batch;
import com.openai.models.batches.BatchCreateParams;
import com.openai.models.files.FileCreateParams;
import com.openai.models.files.FileObject;
import com.openai.models.files.FilePurpose;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * Files end as OpenAI's do, through the official SDK: DELETE /v1/files/{id}; an upload's expires_after; files and
 * batch outputs gone from the disk by themselves after their time (batch.retention unless told), so that a tenant's
 * storage (batch.max-stored-bytes, where an upload past it is refused 429 storage_exhausted) comes back. The tests share
 * one gateway: each leaves none of its files behind but the last upload of the storage test, which fits beside any
 * other test's, and each reads times from its own file's creation, wherever an earlier test left the clock.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class FileLifecycleTest extends GatewayTestSupport {

    private OpenAIClient client;
    private Path files;

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

    @Override
    protected Properties overrideProperties() {
        Properties p = super.overrideProperties();
        p.put("batch.retention", "2h");
        p.put("batch.max-stored-bytes", "200000");
        // expired files deleted within a tenth of a second of the clock's move, not the 5 s of the usual beat
        p.put("batch.expiry-check-ms", "100");
        files = Path.of(p.getProperty("state.dir")).resolve("batch/files");
        return p;
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
            client = null;
        }
    }

    private FileObject upload(String jsonl, FileCreateParams.ExpiresAfter expiresAfter) {
        FileCreateParams.Builder params = FileCreateParams.builder().file(jsonl.getBytes(StandardCharsets.UTF_8))
                .purpose(FilePurpose.BATCH);
        if (expiresAfter != null) {
            params.expiresAfter(expiresAfter);
        }
        return client().files().create(params.build());
    }

    private boolean onDisk(String id) {
        try (Stream<Path> all = Files.list(files)) {
            return all.anyMatch(f -> f.getFileName().toString().startsWith(id));
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    private static String lines(int n) {
        return String.join("\n", IntStream.range(0, n).mapToObj(i -> BatchApiSdkTest.chatLine("f-" + i)).toList());
    }

    @Test
    void should_delete_a_file() {
        FileObject file = upload(lines(3), null);
        assertThat(client().files().delete(file.id()).deleted()).isTrue();
        assertThatThrownBy(() -> client().files().retrieve(file.id())).isInstanceOf(NotFoundException.class);
        assertThatThrownBy(() -> client().files().delete(file.id())).isInstanceOf(NotFoundException.class);
        assertThat(onDisk(file.id())).isFalse();
    }

    @Test
    void should_expire_an_upload_after_its_expires_after() {
        FileObject file = upload(lines(3), FileCreateParams.ExpiresAfter.builder().seconds(3600).build());
        assertThat(file.expiresAt()).contains(file.createdAt() + 3600);
        clock.advance(Duration.ofMinutes(59));
        assertThat(client().files().retrieve(file.id()).id()).isEqualTo(file.id());
        clock.advance(Duration.ofMinutes(1));
        assertThatThrownBy(() -> client().files().retrieve(file.id())).isInstanceOf(NotFoundException.class);
        await().atMost(Duration.ofSeconds(15)).until(() -> !onDisk(file.id()));
    }

    @Test
    void should_expire_a_batch_output_after_the_retention_and_take_uploads_again() {
        String big = lines(600);   // ~90 KB: two fit in the tenant's 200,000 bytes, three do not
        FileObject input = upload(big, null);
        assertThat(input.expiresAt()).contains(input.createdAt() + 7200);
        Batch created = client().batches().create(BatchCreateParams.builder().inputFileId(input.id())
                .endpoint(BatchCreateParams.Endpoint.V1_CHAT_COMPLETIONS)
                .completionWindow(BatchCreateParams.CompletionWindow._24H).build());
        Batch done = await().atMost(Duration.ofSeconds(30)).until(() -> client().batches().retrieve(created.id()),
                b -> Batch.Status.COMPLETED.equals(b.status()));
        String output = done.outputFileId().orElseThrow();
        assertThatThrownBy(() -> upload(big, null)).isInstanceOfSatisfying(RateLimitException.class,
                e -> assertThat(e.code()).contains("storage_exhausted"));

        clock.advance(Duration.ofHours(2));
        assertThatThrownBy(() -> client().files().retrieve(output)).isInstanceOf(NotFoundException.class);
        await().atMost(Duration.ofSeconds(15)).until(() -> !onDisk(output) && !onDisk(input.id()));
        assertThat(upload(big, null).id()).startsWith("file-");
    }
}
