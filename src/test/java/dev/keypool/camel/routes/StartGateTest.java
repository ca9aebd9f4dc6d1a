package dev.keypool.camel.routes;

import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

import dev.keypool.testing.FakeUpstream;
import dev.keypool.testing.FreePorts;
import dev.keypool.testing.GatewayInstance;
import org.apache.camel.Route;
import org.apache.camel.spi.RoutePolicyFactory;
import org.apache.camel.support.RoutePolicySupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/** A request that comes while the gateway still starts its routes waits for them, then is answered as any other. */
class StartGateTest {

    @TempDir
    Path dir;

    @Test
    void should_hold_a_request_that_comes_while_the_routes_start_until_they_have_started() throws Exception {
        CountDownLatch starting = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        // the start stops at the route of the provider calls: the server listens, and the entry routes may take requests
        RoutePolicyFactory holdProviderCalls = (camel, routeId, route) -> "upstream-attempt".equals(routeId)
                ? new RoutePolicySupport() {
                    @Override
                    public void onStart(Route started) {
                        starting.countDown();
                        try {
                            release.await(60, TimeUnit.SECONDS);
                        } catch (InterruptedException e) {
                            Thread.currentThread().interrupt();
                        }
                    }
                }
                : null;
        String port = String.valueOf(FreePorts.next());
        // threads of their own: the start blocks one, and the common pool may have only that one
        ExecutorService threads = Executors.newCachedThreadPool();
        try (FakeUpstream upstream = new FakeUpstream()) {
            String config = """
                    channels:
                      - name: starting
                        baseUrl: %s
                        models: [gpt-starting]
                        keys:
                          - key: sk-starting-1
                    """.formatted(upstream.baseUrl());
            CompletableFuture<GatewayInstance> gateway = CompletableFuture.supplyAsync(() -> GatewayInstance.start(dir,
                    "starting", config, Clock.systemUTC(), Map.of("camel.server.port", port, "camel.management.port", port),
                    Map.of("holdProviderCalls", holdProviderCalls)), threads);
            try {
                assertThat(starting.await(60, TimeUnit.SECONDS)).isTrue();
                CompletableFuture<HttpResponse<String>> answer = CompletableFuture.supplyAsync(() -> chat(port), threads);
                // held, not answered, while the provider calls' route starts
                await().during(Duration.ofMillis(500)).atMost(Duration.ofSeconds(5)).until(() -> !answer.isDone());
                release.countDown();
                HttpResponse<String> held = answer.get(30, TimeUnit.SECONDS);
                assertThat(held.statusCode()).as(held.body()).isEqualTo(200);
                gateway.get(60, TimeUnit.SECONDS);
                assertThat(chat(port).statusCode()).isEqualTo(200);
                assertThat(upstream.received()).hasSize(2);
            } finally {
                release.countDown();
                gateway.get(60, TimeUnit.SECONDS).close();
            }
        } finally {
            threads.shutdownNow();
        }
    }

    private static HttpResponse<String> chat(String port) {
        return GatewayInstance.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/v1/chat/completions"))
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(
                        "{\"model\":\"gpt-starting\",\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}"))
                .timeout(Duration.ofSeconds(30)).build());
    }
}
