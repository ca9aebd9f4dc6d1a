package dev.keypool.it;

import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Properties;
import java.util.stream.Stream;

import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A tenant's async tasks are bounded: past batch.max-queued-tasks tasks waiting or running, or past
 * batch.max-stored-bytes kept, a new one is refused 429 (too_many_tasks, storage_exhausted) before anything of it is
 * written, while another tenant's are still taken.
 */
class AsyncTaskLimitsTest extends GatewayTestSupport {

    private static final ObjectMapper JSON = new ObjectMapper();
    private Path state;

    @Override
    protected String keypoolYaml() {
        return """
                channels:
                  - name: primary
                    baseUrl: UPSTREAM
                    models: [gpt-test]
                    maxRetries: 0
                    keys:
                      - key: sk-one
                tenants:
                  - name: team-a
                    token: token-a
                  - name: team-b
                    token: token-b
                """;
    }

    @Override
    protected Properties overrideProperties() {
        Properties p = super.overrideProperties();
        p.put("batch.max-queued-tasks", "2");
        p.put("batch.max-stored-bytes", "300000");
        state = Path.of(p.getProperty("state.dir"));
        return p;
    }

    @AfterEach
    void release() {
        upstream.releaseAnswers();
    }

    private HttpResponse<String> submit(String token, String body) throws Exception {
        return http.send(HttpRequest.newBuilder(URI.create(url("/v1/chat/completions")))
                .header("Content-Type", "application/json").header("X-KeyPool-Async", "true")
                .header("Authorization", "Bearer " + token).timeout(Duration.ofSeconds(30))
                .POST(HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.ofString());
    }

    private long taskFiles() throws Exception {
        Path tasks = state.resolve("batch/tasks");
        if (!Files.isDirectory(tasks)) {
            return 0;
        }
        try (Stream<Path> files = Files.list(tasks)) {
            return files.filter(f -> f.getFileName().toString().endsWith(".json")).count();
        }
    }

    private static String body(int contentChars) {
        return "{\"model\":\"gpt-test\",\"messages\":[{\"role\":\"user\",\"content\":\"" + "x".repeat(contentChars) + "\"}]}";
    }

    @Test
    void should_refuse_a_task_past_the_tenants_queued_tasks_with_429_too_many_tasks() throws Exception {
        upstream.holdAnswers();
        assertThat(submit("token-a", chatBody("gpt-test")).statusCode()).isEqualTo(202);
        assertThat(submit("token-a", chatBody("gpt-test")).statusCode()).isEqualTo(202);
        HttpResponse<String> refused = submit("token-a", chatBody("gpt-test"));
        assertThat(refused.statusCode()).isEqualTo(429);
        assertThat(JSON.readTree(refused.body()).at("/error/code").asText()).isEqualTo("too_many_tasks");
        assertThat(JSON.readTree(refused.body()).at("/error/type").asText()).isEqualTo("rate_limit_error");
        assertThat(taskFiles()).isEqualTo(2);

        assertThat(submit("token-b", chatBody("gpt-test")).statusCode()).isEqualTo(202);
        // once team-a's tasks are done, it may queue again
        await().atMost(Duration.ofSeconds(10)).until(() -> upstream.heldAnswers() >= 3);
        upstream.releaseAnswers();
        await().atMost(Duration.ofSeconds(10)).until(() -> submit("token-a", chatBody("gpt-test")).statusCode() == 202);
    }

    @Test
    void should_refuse_a_tenant_at_its_limit_before_reading_its_request() throws Exception {
        upstream.holdAnswers();
        submit("token-a", chatBody("gpt-test"));
        submit("token-a", chatBody("gpt-test"));
        HttpResponse<String> refused = submit("token-a", "not even JSON");
        assertThat(refused.statusCode()).isEqualTo(429);
        assertThat(JSON.readTree(refused.body()).at("/error/code").asText()).isEqualTo("too_many_tasks");
        assertThat(submit("token-b", "not even JSON").statusCode()).isEqualTo(400);
    }

    @Test
    void should_refuse_a_task_past_the_tenants_storage_with_429_storage_exhausted() throws Exception {
        upstream.holdAnswers();
        assertThat(submit("token-a", body(200_000)).statusCode()).isEqualTo(202);
        HttpResponse<String> refused = submit("token-a", body(200_000));
        assertThat(refused.statusCode()).isEqualTo(429);
        assertThat(JSON.readTree(refused.body()).at("/error/code").asText()).isEqualTo("storage_exhausted");
        assertThat(taskFiles()).isEqualTo(1);
        assertThat(submit("token-b", body(200_000)).statusCode()).isEqualTo(202);
    }
}
