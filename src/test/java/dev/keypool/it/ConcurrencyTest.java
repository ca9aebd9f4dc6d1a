package dev.keypool.it;

import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.CompletableFuture;

import dev.keypool.camel.pipeline.Admission;
import org.apache.camel.component.platform.http.vertx.VertxPlatformHttpRouter;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeFalse;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * LLM calls take seconds, so the gateway must hold thousands at once: these check that nothing is refused or
 * lost at that concurrency (correctness only; speed is measured by bench/run.sh, not here). Slow: 10,000 connections
 * take the machine's cores and descriptors for a minute, so it runs with the process tests (mvn verify).
 */
@Tag("slow")
class ConcurrencyTest extends GatewayTestSupport {

    /** keypool.worker-threads here: the requests Java 17 holds at once, a few hundred so that the test stays short. */
    private static final int WORKERS = 300;

    @Override
    protected Properties overrideProperties() {
        Properties p = super.overrideProperties();
        p.put("keypool.worker-threads", String.valueOf(WORKERS));
        return p;
    }

    @Override
    protected String keypoolYaml() {
        return """
                channels:
                  - name: alpha
                    baseUrl: UPSTREAM
                    models: ["*"]
                    timeout: 30s
                    keys:
                      - key: sk-c-1
                      - key: sk-c-2
                      - key: sk-c-3
                      - key: sk-c-4
                """;
    }

    private List<HttpResponse<String>> fire(int n, String body) {
        return send(n, body).stream().map(CompletableFuture::join).toList();
    }

    private List<CompletableFuture<HttpResponse<String>>> send(int n, String body) {
        List<CompletableFuture<HttpResponse<String>>> calls = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            HttpRequest request = HttpRequest.newBuilder(URI.create(url("/v1/chat/completions")))
                    .header("Content-Type", "application/json").timeout(Duration.ofSeconds(120))
                    .POST(HttpRequest.BodyPublishers.ofString(body)).build();
            calls.add(http.sendAsync(request, HttpResponse.BodyHandlers.ofString()));
        }
        return calls;
    }

    @Test
    void should_serve_http_on_native_epoll_where_netty_ships_it() {
        // the CI and the Docker image are Linux x86-64; elsewhere Vert.x falls back to Java NIO by itself
        assumeTrue(System.getProperty("os.name").startsWith("Linux") && System.getProperty("os.arch").equals("amd64"),
                "netty-transport-native-epoll is on the classpath for Linux x86-64 only");

        VertxPlatformHttpRouter router = context.getRegistry().findByType(VertxPlatformHttpRouter.class).iterator().next();

        assertThat(router.vertx().isNativeTransportEnabled()).isTrue();
    }

    /**
     * 10,000, or fewer where the process may not open that many files: this JVM holds four descriptors per request
     * (the test's client socket, the gateway's two, the fake provider's one). On this project's machines the hard
     * limit is 20,000, which allows 4,750. Only virtual threads (Java 21+) hold that many: on Java 17 each request in
     * flight holds a worker thread, and {@link #should_hold_half_the_worker_pool_of_requests_in_flight_on_platform_threads}
     * checks what that path can do.
     */
    @Test
    void should_hold_10000_requests_in_flight_on_virtual_threads_or_as_many_as_the_descriptor_limit_allows() {
        assumeTrue(virtualThreads(), "10,000 in flight need a virtual thread per request (Java 21+)");
        long fdLimit = ((com.sun.management.UnixOperatingSystemMXBean)
                java.lang.management.ManagementFactory.getOperatingSystemMXBean()).getMaxFileDescriptorCount();

        holdInFlight((int) Math.min(10_000, (fdLimit - 1_000) / 4));
    }

    /**
     * Java 17, or virtual threads off: a request in flight holds a worker thread, so the pool bounds what is held at
     * once. Half the pool here: what happens at its edge (a request past what the workers hold) has its own test.
     */
    @Test
    void should_hold_half_the_worker_pool_of_requests_in_flight_on_platform_threads() {
        assumeFalse(virtualThreads(), "on virtual threads no worker pool bounds the requests in flight");

        holdInFlight(WORKERS / 2);
    }

    private void holdInFlight(int n) {
        upstream.holdAnswers().keepRequests(false);

        List<CompletableFuture<HttpResponse<String>>> calls = send(n, chatBody("any"));
        // every one of them is at the provider at the same moment: none waits for a thread or a connection
        await().atMost(Duration.ofSeconds(120)).until(() -> upstream.heldAnswers() == n);
        assertThat(admission().limit().inFlight()).isEqualTo(n);
        upstream.releaseAnswers();
        List<HttpResponse<String>> responses = calls.stream().map(CompletableFuture::join).toList();

        assertThat(responses).hasSize(n).allSatisfy(r -> {
            assertThat(r.statusCode()).isEqualTo(200);
            assertThat(r.body()).contains("\"fake answer ");
            assertThat(r.headers().firstValue("X-KeyPool-Channel")).hasValue("alpha");
        });
        assertThat(upstream.totalHits()).isEqualTo(n);
        await().atMost(Duration.ofSeconds(10)).until(() -> admission().limit().inFlight() == 0);
        assertThat(channel("alpha").pool().keys()).allMatch(k -> k.inFlight() == 0);
    }

    /** As RequestThreads decides: Java 21+ and Camel's switch on (the build turns it on for the tests). */
    private static boolean virtualThreads() {
        return Runtime.version().feature() >= 21 && Boolean.getBoolean("camel.threads.virtual.enabled");
    }

    private Admission admission() {
        return context.getRegistry().lookupByNameAndType("admission", Admission.class);
    }

    /** 1,000 on virtual threads; on platform threads each stream holds a worker, so half the pool there. */
    @Test
    void should_relay_1000_concurrent_streams_or_half_the_worker_pool_with_every_event() {
        int n = virtualThreads() ? 1000 : WORKERS / 2;
        upstream.streamEvents(50, 100).keepRequests(false);
        String body = "{\"model\":\"any\",\"stream\":true,\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}";

        List<HttpResponse<String>> responses = fire(n, body);

        assertThat(responses).hasSize(n).allSatisfy(r -> {
            assertThat(r.statusCode()).isEqualTo(200);
            assertThat(r.body().split("\n\n")).hasSize(51);   // 50 chunks + [DONE]
            assertThat(r.body()).endsWith("data: [DONE]\n\n").doesNotContain("\"error\"");
        });
        assertThat(upstream.streamsCompleted()).isEqualTo(n);
        assertThat(channel("alpha").pool().keys()).allMatch(k -> k.inFlight() == 0);
    }
}
