package dev.keypool.it;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import dev.keypool.testing.FakeUpstream;
import dev.keypool.testing.GatewayProcess;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The shipped gateway's stop, as an operator's SIGTERM makes it: a gateway that has served requests and has nothing in
 * flight stops without Camel's pause of a second (its stop strategy logs "Waiting as there are still … inflight"
 * before each), one with a request in flight answers it first and then stops as promptly, and neither logs a stack
 * trace on its way out (platform-http's server closed after the Vert.x it runs on, before, logged one at every stop).
 * The time from SIGTERM to the process's end is logged for comparison, and bounded only generously.
 */
@Tag("slow")
class GatewayStopTest {

    private static final Logger LOG = LoggerFactory.getLogger(GatewayStopTest.class);
    private static final String CHAT = "{\"model\":\"gpt-stop\",\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}";
    /** Camel's graceful stop logs this before each second it waits for exchanges in flight. */
    private static final String CAMEL_WAITS = "Waiting as there are still";

    private final FakeUpstream upstream = new FakeUpstream();
    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5)).build();
    private Process gateway;

    @AfterEach
    void stop() throws InterruptedException {
        GatewayProcess.stop(gateway);
        upstream.close();
    }

    @Test
    void should_stop_at_once_when_idle_after_serving_and_log_no_stack_trace() throws Exception {
        Path root = Files.createTempDirectory("keypool-stop-");
        int port = start(root);
        for (int i = 0; i < 20; i++) {
            assertThat(chat(port).statusCode()).isEqualTo(200);
        }

        long stopMs = sigterm();

        String log = Files.readString(root.resolve("gateway.log"));
        LOG.info("An idle gateway stopped {} ms after SIGTERM", stopMs);
        assertThat(log).contains("is shutdown").doesNotContain(CAMEL_WAITS);
        assertNoStackTrace(log);
    }

    @Test
    void should_answer_the_request_in_flight_then_stop_without_a_pause_and_log_no_stack_trace() throws Exception {
        Path root = Files.createTempDirectory("keypool-stop-");
        int port = start(root);
        assertThat(chat(port).statusCode()).isEqualTo(200);
        upstream.holdAnswers();
        CompletableFuture<HttpResponse<String>> inFlight = CompletableFuture.supplyAsync(() -> chat(port));
        await().atMost(Duration.ofSeconds(30)).until(() -> upstream.heldAnswers() == 1);

        gateway.destroy();
        // the stop waits for it: the process is still there while the provider has not answered
        await().during(Duration.ofMillis(300)).atMost(Duration.ofSeconds(5)).until(gateway::isAlive);
        long released = System.nanoTime();
        upstream.releaseAnswers();

        assertThat(inFlight.get(30, TimeUnit.SECONDS).statusCode()).isEqualTo(200);
        assertThat(gateway.waitFor(30, TimeUnit.SECONDS)).isTrue();
        LOG.info("A gateway with a request in flight stopped {} ms after its answer was released",
                TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - released));
        String log = Files.readString(root.resolve("gateway.log"));
        assertThat(log).contains("is shutdown").doesNotContain(CAMEL_WAITS);
        assertNoStackTrace(log);
    }

    private int start(Path root) throws Exception {
        String yaml = """
                channels:
                  - name: primary
                    baseUrl: %s
                    models: [gpt-stop]
                    keys:
                      - key: sk-stop-one
                """.formatted(upstream.baseUrl());
        int port = GatewayTestSupport.freePort();
        gateway = GatewayProcess.start(root, "gateway", yaml, port, List.of("-Xmx256m"), Map.of());
        GatewayProcess.awaitStarted(port);
        return port;
    }

    /** SIGTERM, then the milliseconds until the process ended (a generous bound: it must end). */
    private long sigterm() throws InterruptedException {
        long start = System.nanoTime();
        gateway.destroy();
        assertThat(gateway.waitFor(30, TimeUnit.SECONDS)).as("the gateway ended after SIGTERM").isTrue();
        return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
    }

    private HttpResponse<String> chat(int port) {
        try {
            return http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/v1/chat/completions"))
                    .header("Content-Type", "application/json").timeout(Duration.ofSeconds(30))
                    .POST(HttpRequest.BodyPublishers.ofString(CHAT)).build(), HttpResponse.BodyHandlers.ofString());
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    private static void assertNoStackTrace(String log) {
        assertThat(log.lines().filter(line -> line.startsWith("\tat ") || line.contains("Exception")).toList())
                .as("stack traces and exceptions in the gateway's log").isEmpty();
    }
}
