package dev.keypool.it;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.keypool.testing.FakeUpstream;
import dev.keypool.testing.GatewayProcess;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Tag;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Platform threads (Java 17–20, or virtual threads turned off) under a burst five times the worker pool: platform-http
 * holds a Vert.x worker per request until it is answered, so a gateway with 200 workers is sent 1,000 requests at once.
 * The ones the workers hold go to the provider, every other one is refused with 503 overloaded at once, and the gateway
 * answers the next request. The gateway runs as its own JVM, the only way to turn virtual threads off (Camel reads the
 * switch once per JVM, and the test JVM has them on).
 *
 * <p>Without the answers of provider calls handed past the Vert.x worker pool (UpstreamHttpComponent), the 200 calls
 * at the provider are never answered: each answer waits for a worker, every worker waits for an answer. Without the
 * in-flight limit held to the worker count, the 800 requests past the workers wait in Vert.x's queue instead of being
 * refused while the provider holds the others.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Tag("slow")
class PlatformThreadBurstTest {

    private static final int WORKERS = 200;
    private static final int BURST = 1000;
    private static final String BODY = "{\"model\":\"gpt-test\",\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}";

    private final FakeUpstream upstream = new FakeUpstream().keepRequests(false);
    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(10)).build();
    private Process gateway;
    private String url;

    @BeforeAll
    void startGateway() throws Exception {
        Path root = Files.createTempDirectory("keypool-platform-");
        String yaml = """
                channels:
                  - name: primary
                    baseUrl: %s
                    models: [gpt-test]
                    timeout: 60s
                    keys:
                      - key: sk-burst-one
                      - key: sk-burst-two
                """.formatted(upstream.baseUrl());
        int port = GatewayTestSupport.freePort();
        gateway = GatewayProcess.start(root, "gateway", yaml, port, List.of("-Xmx336m"),
                Map.of("camel.threads.virtual.enabled", "false", "keypool.worker-threads", String.valueOf(WORKERS)));
        url = "http://127.0.0.1:" + port + "/v1/chat/completions";
        await().atMost(Duration.ofSeconds(90)).ignoreExceptions().until(() -> send().statusCode() == 200);
    }

    @AfterEach
    void answerWhatIsHeld() {
        upstream.releaseAnswers();
    }

    @AfterAll
    void stop() throws InterruptedException {
        GatewayProcess.stop(gateway);
        upstream.close();
    }

    @Test
    void should_refuse_what_the_workers_cannot_hold_with_503_overloaded_while_the_provider_holds_the_rest() throws Exception {
        upstream.delayAll(0).holdAnswers();

        List<CompletableFuture<HttpResponse<String>>> calls = burst();
        // each request is at the provider or already answered: none waits for a worker
        await().atMost(Duration.ofSeconds(60))
                .until(() -> upstream.heldAnswers() + calls.stream().filter(CompletableFuture::isDone).count() == BURST);
        int held = upstream.heldAnswers();
        List<HttpResponse<String>> refused = calls.stream().filter(CompletableFuture::isDone).map(CompletableFuture::join).toList();
        upstream.releaseAnswers();
        List<HttpResponse<String>> all = calls.stream().map(CompletableFuture::join).toList();

        assertThat(held).isPositive().isLessThanOrEqualTo(WORKERS);
        assertThat(refused).hasSize(BURST - held).allSatisfy(PlatformThreadBurstTest::assertOverloaded);
        assertThat(all).filteredOn(r -> r.statusCode() == 200).hasSize(held);
        assertThat(send().statusCode()).isEqualTo(200);
    }

    @Test
    void should_answer_each_of_a_burst_200_or_503_overloaded_against_a_1s_provider_and_serve_right_after() throws Exception {
        upstream.delayAll(1000);

        List<HttpResponse<String>> all = burst().stream().map(CompletableFuture::join).toList();

        assertThat(all).hasSize(BURST).allSatisfy(r -> {
            if (r.statusCode() != 200) {
                assertOverloaded(r);
            }
        });
        assertThat(all).anyMatch(r -> r.statusCode() == 200);
        assertThat(send().statusCode()).isEqualTo(200);
    }

    private static void assertOverloaded(HttpResponse<String> response) {
        assertThat(response.statusCode()).as(response.body()).isEqualTo(503);
        assertThat(response.headers().firstValue("Retry-After")).hasValue("1");
        try {
            assertThat(new ObjectMapper().readTree(response.body()).at("/error/code").asText()).isEqualTo("overloaded");
        } catch (java.io.IOException e) {
            throw new AssertionError("not JSON: " + response.body(), e);
        }
    }

    private List<CompletableFuture<HttpResponse<String>>> burst() {
        List<CompletableFuture<HttpResponse<String>>> calls = new ArrayList<>();
        for (int i = 0; i < BURST; i++) {
            calls.add(http.sendAsync(request(), HttpResponse.BodyHandlers.ofString()));
        }
        return calls;
    }

    private HttpResponse<String> send() throws Exception {
        return http.send(request(), HttpResponse.BodyHandlers.ofString());
    }

    private HttpRequest request() {
        return HttpRequest.newBuilder(URI.create(url)).header("Content-Type", "application/json")
                .timeout(Duration.ofSeconds(60)).POST(HttpRequest.BodyPublishers.ofString(BODY)).build();
    }
}
