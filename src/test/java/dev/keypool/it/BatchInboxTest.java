package dev.keypool.it;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.stream.IntStream;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.apache.camel.support.DefaultScheduledPollConsumerScheduler;
import org.apache.camel.support.ScheduledPollConsumer;
import org.apache.camel.util.concurrent.SizedScheduledExecutorService;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The file inbox, the queue that needs no broker: batch/inbox/name.jsonl -> batch/outbox/name.output.jsonl with one
 * result line per input line, malformed lines answered with a clear error while the rest runs, then .done/.
 */
class BatchInboxTest extends GatewayTestSupport {

    private static final ObjectMapper JSON = new ObjectMapper();
    private Path inbox;
    private Path outbox;

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
        try {
            Path root = Files.createTempDirectory("keypool-batch-");
            inbox = root.resolve("inbox");
            outbox = root.resolve("outbox");
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
        p.put("batch.inbox", inbox.toString());
        p.put("batch.outbox", outbox.toString());
        return p;
    }

    /** Written aside, then moved in: the inbox never sees half a file. */
    private void drop(String name, List<String> lines) throws IOException {
        Files.createDirectories(inbox);
        Path tmp = inbox.resolveSibling(name + ".tmp");
        Files.write(tmp, lines);
        Files.move(tmp, inbox.resolve(name), StandardCopyOption.ATOMIC_MOVE);
    }

    /**
     * Between two polls its thread sleeps until the next one is due: a scheduled pool without a core thread, as Camel
     * makes them for virtual threads, looks at its queue every 10 ms.
     */
    @Test
    void should_poll_the_inbox_from_a_thread_that_sleeps_until_the_next_poll() {
        ScheduledPollConsumer inbox = (ScheduledPollConsumer) context.getRoute("batch-inbox").getConsumer();
        DefaultScheduledPollConsumerScheduler scheduler = (DefaultScheduledPollConsumerScheduler) inbox.getScheduler();

        // on platform threads (Java 17, or virtual threads off) Camel wraps its pool
        ScheduledThreadPoolExecutor pool = scheduler.getScheduledExecutorService() instanceof SizedScheduledExecutorService sized
                ? sized.getScheduledThreadPoolExecutor()
                : (ScheduledThreadPoolExecutor) scheduler.getScheduledExecutorService();

        assertThat(pool.getCorePoolSize()).isEqualTo(1);
    }

    @Test
    void should_answer_every_line_and_report_malformed_ones() throws Exception {
        List<String> lines = new ArrayList<>(IntStream.range(0, 20).mapToObj(i -> BatchApiSdkTest.chatLine("line-" + i)).toList());
        lines.add(5, "{not json");
        lines.add(9, "{\"custom_id\":\"line-3\",\"method\":\"POST\",\"url\":\"/v1/chat/completions\",\"body\":{}}");
        lines.add(12, "{\"custom_id\":\"wrong-url\",\"method\":\"POST\",\"url\":\"/v1/embeddings\",\"body\":{\"model\":\"gpt-test\"}}");
        lines.add(14, "{\"custom_id\":\"no-body\",\"method\":\"POST\",\"url\":\"/v1/chat/completions\"}");
        drop("evals.jsonl", lines);

        Path output = outbox.resolve("evals.output.jsonl");
        await().atMost(Duration.ofSeconds(20)).until(() -> Files.exists(output));
        List<JsonNode> results = new ArrayList<>();
        for (String line : Files.readAllLines(output)) {
            results.add(JSON.readTree(line));
        }
        assertThat(results).hasSize(24);
        assertThat(results.stream().filter(r -> r.at("/response/status_code").asInt() == 200)
                .map(r -> r.get("custom_id").asText())).containsExactlyInAnyOrderElementsOf(
                IntStream.range(0, 20).mapToObj(i -> "line-" + i).toList());
        List<JsonNode> errors = results.stream().filter(r -> r.get("response").isNull()).toList();
        assertThat(errors).extracting(r -> r.at("/error/code").asText()).containsOnly("invalid_request");
        assertThat(errors).extracting(r -> r.at("/error/message").asText()).containsExactly(
                "Line 6 is not valid JSON: Unexpected character ('n' (code 110)): was expecting double-quote to start field name",
                "Line 10: custom_id 'line-3' is used by an earlier line",
                "Line 13: 'url' must be the batch's endpoint /v1/chat/completions, was '/v1/embeddings'",
                "Line 15: 'body' is required and must be a JSON object");
        assertThat(upstream.totalHits()).isEqualTo(20);
        await().atMost(Duration.ofSeconds(5)).until(() -> Files.exists(inbox.resolve(".done/evals.jsonl")));
        assertThat(inbox.resolve("evals.jsonl")).doesNotExist();
    }

    @Test
    void should_put_an_upstream_error_in_the_line_and_run_the_rest() throws Exception {
        drop("mixed.jsonl", List.of(BatchApiSdkTest.chatLine("ok-1"),
                "{\"custom_id\":\"unknown-model\",\"method\":\"POST\",\"url\":\"/v1/chat/completions\",\"body\":"
                        + "{\"model\":\"no-such-model\",\"messages\":[{\"role\":\"user\",\"content\":\"x\"}]}}",
                BatchApiSdkTest.chatLine("ok-2")));
        Path output = outbox.resolve("mixed.output.jsonl");
        await().atMost(Duration.ofSeconds(20)).until(() -> Files.exists(output));
        List<String> lines = Files.readAllLines(output);
        assertThat(lines).hasSize(3);
        JsonNode notFound = JSON.readTree(lines.get(1));
        assertThat(notFound.get("custom_id").asText()).isEqualTo("unknown-model");
        assertThat(notFound.at("/response/status_code").asInt()).isEqualTo(404);
        assertThat(notFound.at("/response/body/error/code").asText()).isEqualTo("model_not_found");
        assertThat(upstream.totalHits()).isEqualTo(2);
    }
}
