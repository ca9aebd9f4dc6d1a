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
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;

import dev.keypool.testing.FakeUpstream;
import dev.keypool.testing.GatewayProcess;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Tag;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * On platform threads a provider's answer needs no Vert.x worker: with every worker held by a request waiting for its
 * provider (no spare worker at all), the answers still come through and each request is answered. The gateway runs
 * as its own JVM with virtual threads off (Camel reads the switch once per JVM, and the test JVM has them on).
 *
 * <p>vertx-http hands each answer to {@code vertx.executeBlocking}, the worker pool: without UpstreamHttpComponent's
 * own hand-over, each answer waits for a worker while every worker waits for an answer, and no request is answered.
 */
@Tag("slow")
class PlatformThreadAnswersTest {

    private static final int WORKERS = 20;
    private static final String BODY = "{\"model\":\"gpt-test\",\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}";

    private final FakeUpstream upstream = new FakeUpstream().keepRequests(false);
    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(10)).build();
    private Process gateway;

    @AfterEach
    void stop() throws InterruptedException {
        upstream.releaseAnswers();
        GatewayProcess.stop(gateway);
        upstream.close();
    }

    @Test
    void should_answer_requests_that_hold_every_worker_when_their_provider_answers() throws Exception {
        Path root = Files.createTempDirectory("keypool-answers-");
        String yaml = """
                channels:
                  - name: primary
                    baseUrl: %s
                    models: [gpt-test]
                    timeout: 60s
                    keys:
                      - key: sk-answers-one
                """.formatted(upstream.baseUrl());
        int port = GatewayTestSupport.freePort();
        gateway = GatewayProcess.start(root, "gateway", yaml, port, List.of("-Xmx336m"),
                Map.of("camel.threads.virtual.enabled", "false", "keypool.worker-threads", String.valueOf(WORKERS),
                        "keypool.spare-worker-threads", "0"));
        String url = "http://127.0.0.1:" + port + "/v1/chat/completions";
        // a failure names the gateway's last answer (its error says why no channel served), not only the timeout
        await().atMost(Duration.ofSeconds(90)).ignoreExceptionsInstanceOf(CompletionException.class)
                .untilAsserted(() -> {
                    HttpResponse<String> r = send(url).join();
                    assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
                });

        upstream.holdAnswers();
        List<CompletableFuture<HttpResponse<String>>> calls = new ArrayList<>();
        for (int i = 0; i < WORKERS; i++) {
            calls.add(send(url));
        }
        // every worker is now held by a request at the provider
        await().atMost(Duration.ofSeconds(30)).until(() -> upstream.heldAnswers() == WORKERS);
        upstream.releaseAnswers();

        assertThat(CompletableFuture.allOf(calls.toArray(CompletableFuture[]::new)))
                .succeedsWithin(Duration.ofSeconds(30));
        assertThat(calls).allSatisfy(call -> assertThat(call.join().statusCode()).isEqualTo(200));
        assertThat(send(url).get(30, TimeUnit.SECONDS).statusCode()).isEqualTo(200);
    }

    private CompletableFuture<HttpResponse<String>> send(String url) {
        HttpRequest request = HttpRequest.newBuilder(URI.create(url)).header("Content-Type", "application/json")
                .timeout(Duration.ofSeconds(60)).POST(HttpRequest.BodyPublishers.ofString(BODY)).build();
        return http.sendAsync(request, HttpResponse.BodyHandlers.ofString());
    }
}
