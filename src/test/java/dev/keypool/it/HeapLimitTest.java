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
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Back-pressure by memory, not only by count (keypool.heap-limit): a gateway in a 128 MiB heap, with no count limit in
 * the way, is sent far more requests than its heap holds, 20 every 50 ms, while the provider keeps them all waiting.
 * Once a full collection leaves its old generation past the limit it refuses new ones with 503 overloaded at once, so
 * the ones it took stay within the heap and are all answered, and it serves on afterwards. With the limit off
 * (keypool.heap-limit=1) this test fails: the gateway runs out of memory (20 OutOfMemoryErrors in its log) and its
 * requests are never all held or answered.
 */
@Tag("slow")
class HeapLimitTest {

    private static final int REQUESTS = 1000;
    private static final int WAVE = 20;
    /** A 24 KB prompt: the gateway holds it several times over (the client's bytes, the JSON, the upstream body). */
    private static final String BODY = "{\"model\":\"gpt-test\",\"messages\":[{\"role\":\"user\",\"content\":\""
            + "lorem ipsum ".repeat(24 * 1024 / 12) + "\"}]}";
    private static final String SMALL = "{\"model\":\"gpt-test\",\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}";

    private final FakeUpstream upstream = new FakeUpstream().keepRequests(false);
    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5)).build();
    private Process gateway;

    @AfterEach
    void stop() {
        if (gateway != null) {
            gateway.destroyForcibly();
        }
        upstream.close();
    }

    @Test
    void should_refuse_with_503_overloaded_once_a_full_collection_leaves_the_heap_past_its_limit_and_answer_every_request_it_took()
            throws Exception {
        Path root = Files.createTempDirectory("keypool-heap-");
        String yaml = """
                channels:
                  - name: primary
                    baseUrl: %s
                    models: [gpt-test]
                    timeout: 120s
                    keys:
                      - key: sk-heap-one
                """.formatted(upstream.baseUrl());
        int port = GatewayTestSupport.freePort();
        // 128 MiB: the gateway at rest takes about 37 MiB of it (routes, their JMX MBeans, the tokenizer), so that the
        // flood, not the start, fills it (a quarter of a MiB a request). Serial GC: its full collections are the "end of
        // major GC" notifications the limit reads, as Parallel's are
        gateway = GatewayProcess.start(root, "gateway", yaml, port, List.of("-Xmx128m", "-XX:+UseSerialGC"),
                Map.of("keypool.max-in-flight", "100000"));
        String url = "http://127.0.0.1:" + port + "/v1/chat/completions";
        await().atMost(Duration.ofSeconds(60)).ignoreExceptions()
                .until(() -> send(url, SMALL).statusCode() == 200);

        upstream.holdAnswers();
        List<CompletableFuture<HttpResponse<String>>> calls = new ArrayList<>();
        for (int i = 0; i < REQUESTS; i++) {
            if (i > 0 && i % WAVE == 0) {
                Thread.sleep(50);   // the pace of the load, not a wait for a result
            }
            calls.add(http.sendAsync(request(url, BODY), HttpResponse.BodyHandlers.ofString()));
        }
        // every request is either held by the provider or already refused: none lost, none stuck in a collecting JVM
        await().atMost(Duration.ofSeconds(90))
                .until(() -> upstream.heldAnswers() + calls.stream().filter(CompletableFuture::isDone).count() == REQUESTS);
        int held = upstream.heldAnswers();
        upstream.releaseAnswers();

        int ok = 0;
        int overloaded = 0;
        for (CompletableFuture<HttpResponse<String>> call : calls) {
            HttpResponse<String> response = call.get();
            if (response.statusCode() == 200) {
                ok++;
            } else {
                assertThat(response.statusCode()).as(response.body()).isEqualTo(503);
                assertThat(response.headers().firstValue("Retry-After")).hasValue("1");
                assertThat(new ObjectMapper().readTree(response.body()).at("/error/code").asText()).isEqualTo("overloaded");
                overloaded++;
            }
        }
        assertThat(ok).isEqualTo(held).isPositive();
        assertThat(overloaded).isPositive().isEqualTo(REQUESTS - held);
        String output = Files.readString(root.resolve("gateway.log"));
        assertThat(output).contains("Heap nearly full").doesNotContain("OutOfMemoryError");
        // and it serves on
        assertThat(send(url, SMALL).statusCode()).isEqualTo(200);
    }

    private HttpResponse<String> send(String url, String body) throws Exception {
        return http.send(request(url, body), HttpResponse.BodyHandlers.ofString());
    }

    private static HttpRequest request(String url, String body) {
        return HttpRequest.newBuilder(URI.create(url)).header("Content-Type", "application/json")
                .timeout(Duration.ofSeconds(120)).POST(HttpRequest.BodyPublishers.ofString(body)).build();
    }
}
