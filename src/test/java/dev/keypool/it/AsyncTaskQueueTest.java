package dev.keypool.it;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.Stream;

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

    private static final int TASKS = 1050;

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
        p.put("batch.concurrency", "4");
        // this is about the queue, not the disk: 2,000 forced writes on a busy disk take a minute, in memory none
        Path shm = Path.of("/dev/shm");
        if (Files.isDirectory(shm) && Files.isWritable(shm)) {
            try {
                memoryState = Files.createTempDirectory(shm, "keypool-queue-");
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            p.put("state.dir", memoryState.toString());
        }
        return p;
    }

    private Path memoryState;

    @AfterEach
    void release() throws IOException {
        upstream.releaseAnswers();
        if (memoryState != null) {
            try (Stream<Path> all = Files.walk(memoryState)) {
                all.sorted(Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
            }
        }
    }

    @Test
    void should_run_every_task_it_accepted_past_the_internal_queue_size() throws Exception {
        upstream.holdAnswers();
        Map<Integer, Integer> statuses = new ConcurrentSkipListMap<>();
        HttpRequest request = HttpRequest.newBuilder(URI.create(url("/v1/chat/completions")))
                .header("Content-Type", "application/json").header("X-KeyPool-Async", "true")
                .timeout(Duration.ofSeconds(30)).POST(HttpRequest.BodyPublishers.ofString(chatBody("gpt-test"))).build();
        ExecutorService clients = Executors.newFixedThreadPool(8);
        try {
            List<Future<?>> sent = new ArrayList<>();
            for (int i = 0; i < TASKS; i++) {
                sent.add(clients.submit(() -> statuses.merge(
                        http.send(request, HttpResponse.BodyHandlers.discarding()).statusCode(), 1, Integer::sum)));
            }
            for (Future<?> f : sent) {
                f.get();
            }
        } finally {
            clients.shutdownNow();
        }
        assertThat(statuses).containsExactly(Map.entry(202, TASKS));
        upstream.releaseAnswers();
        await().atMost(Duration.ofSeconds(60)).until(() -> upstream.totalHits() == TASKS);
    }
}
