package dev.keypool.it;

import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Every async task accepted runs, however many wait: more tasks than Camel's default seda queue holds (1,000), taken
 * while the provider keeps the running ones waiting, are all answered 202 (none 500 with a task written that would
 * run only after a restart) and all reach the provider once it answers.
 */
class AsyncTaskQueueTest extends GatewayTestSupport {

    private static final int TASKS = 1100;

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
        p.put("batch.max-queued-tasks", String.valueOf(TASKS));
        p.put("batch.concurrency", "2");
        return p;
    }

    @AfterEach
    void release() {
        upstream.releaseAnswers();
    }

    @Test
    void should_run_every_task_it_accepted_past_the_internal_queue_size() throws Exception {
        upstream.holdAnswers();
        Map<Integer, Integer> statuses = new TreeMap<>();
        HttpRequest request = HttpRequest.newBuilder(URI.create(url("/v1/chat/completions")))
                .header("Content-Type", "application/json").header("X-KeyPool-Async", "true")
                .timeout(Duration.ofSeconds(30)).POST(HttpRequest.BodyPublishers.ofString(chatBody("gpt-test"))).build();
        for (int i = 0; i < TASKS; i++) {
            statuses.merge(http.send(request, HttpResponse.BodyHandlers.discarding()).statusCode(), 1, Integer::sum);
        }
        assertThat(statuses).containsExactly(Map.entry(202, TASKS));
        upstream.releaseAnswers();
        await().atMost(Duration.ofSeconds(60)).until(() -> upstream.totalHits() == TASKS);
    }
}
