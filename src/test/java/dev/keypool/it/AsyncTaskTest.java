package dev.keypool.it;

import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Properties;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * X-KeyPool-Async: true answers 202 with a task; GET /v1/tasks/{id} gives its status, then its answer, for batch.retention.
 * The tests share one gateway, each on a channel of its own; a test reads only its own task.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class AsyncTaskTest extends GatewayTestSupport {

    private static final ObjectMapper JSON = new ObjectMapper();

    /** Each test's own channel primary, named after the test and serving one model of that name. */
    @Override
    protected String keypoolYaml() {
        StringBuilder yaml = new StringBuilder("channels:\n");
        for (String test : testNames()) {
            yaml.append("""
                      - name: %1$s
                        baseUrl: UPSTREAM
                        models: [%1$s]
                        maxRetries: 0
                        keys:
                          - key: sk-one
                    """.formatted(test));
        }
        return yaml.toString();
    }

    @Override
    protected Properties overrideProperties() {
        Properties p = super.overrideProperties();
        p.put("batch.retention", "1h");
        return p;
    }

    private HttpResponse<String> postAsync(String body) throws Exception {
        return http.send(HttpRequest.newBuilder(URI.create(url("/v1/chat/completions")))
                .header("Content-Type", "application/json").header("X-KeyPool-Async", "true")
                .POST(HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.ofString());
    }

    private JsonNode task(String id) throws Exception {
        HttpResponse<String> response = get("/v1/tasks/" + id);
        assertThat(response.statusCode()).isEqualTo(200);
        return JSON.readTree(response.body());
    }

    @Test
    void should_answer_202_then_the_completed_answer() throws Exception {
        upstream.slow("sk-one", 300);
        HttpResponse<String> accepted = postAsync(chatBody(testName()));
        assertThat(accepted.statusCode()).isEqualTo(202);
        JsonNode queued = JSON.readTree(accepted.body());
        String id = queued.get("id").asText();
        assertThat(id).startsWith("task_");
        assertThat(queued.get("object").asText()).isEqualTo("keypool.task");
        assertThat(queued.get("status").asText()).isEqualTo("queued");

        assertThat(task(id).get("status").asText()).isIn("queued", "in_progress");
        JsonNode done = await().atMost(Duration.ofSeconds(10)).until(() -> task(id), t -> t.get("status").asText().equals("completed"));
        assertThat(done.at("/response/status_code").asInt()).isEqualTo(200);
        assertThat(done.at("/response/body/choices/0/message/content").isTextual()).isTrue();
        assertThat(upstream.hits("sk-one")).isEqualTo(1);
    }

    @Test
    void should_mark_a_task_failed_with_the_answer_it_got() throws Exception {
        upstream.answer("sk-one", 500);
        String id = JSON.readTree(postAsync(chatBody(testName())).body()).get("id").asText();
        JsonNode failed = await().atMost(Duration.ofSeconds(10)).until(() -> task(id), t -> t.get("status").asText().equals("failed"));
        assertThat(failed.at("/response/status_code").asInt()).isEqualTo(503);
        assertThat(failed.at("/response/body/error/code").asText()).isEqualTo("no_channel_available");
    }

    @Test
    void should_refuse_a_bad_request_at_once() throws Exception {
        HttpResponse<String> refused = postAsync("{\"model\":\"" + testName() + "\"}");
        assertThat(refused.statusCode()).isEqualTo(400);
        assertThat(JSON.readTree(refused.body()).at("/error/code").asText()).isEqualTo("missing_messages");
        assertThat(upstream.totalHits()).isZero();
    }

    @Test
    void should_forget_a_task_after_the_retention() throws Exception {
        String id = JSON.readTree(postAsync(chatBody(testName())).body()).get("id").asText();
        await().atMost(Duration.ofSeconds(10)).until(() -> task(id), t -> t.get("status").asText().equals("completed"));
        clock.advance(Duration.ofMinutes(59));
        assertThat(task(id).get("status").asText()).isEqualTo("completed");
        clock.advance(Duration.ofMinutes(1));
        HttpResponse<String> gone = get("/v1/tasks/" + id);
        assertThat(gone.statusCode()).isEqualTo(404);
        assertThat(JSON.readTree(gone.body()).at("/error/code").asText()).isEqualTo("not_found");
    }
}
