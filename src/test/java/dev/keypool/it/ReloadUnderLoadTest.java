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
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * No request fails because of a reload (design §9): 64 connections send requests back to back while keypool.yaml is
 * reloaded again and again, each version removing a key, adding one and adding or removing a fallback channel.
 */
class ReloadUnderLoadTest extends GatewayTestSupport {

    private static final int CONNECTIONS = 64;
    private static final String YAML = """
            channels:
              - name: alpha
                baseUrl: UPSTREAM
                models: [gpt-test]
                keys:
            %s
            %s
            admin:
              token: admin-secret-token
            """;
    private static final String BETA = """
              - name: beta
                baseUrl: UPSTREAM
                models: [gpt-beta]
                keys:
                  - key: sk-beta-1
            """;

    @Override
    protected String keypoolYaml() {
        return version(0);
    }

    /** Version n: three of four keys (a different one left out each time), the fallback channel every other time. */
    private static String version(int n) {
        StringBuilder keys = new StringBuilder();
        for (int k = 0; k < 4; k++) {
            if (k != n % 4) {
                keys.append("      - key: sk-alpha-").append(k).append('\n');
            }
        }
        boolean beta = n % 2 == 0;
        return YAML.formatted(keys.toString().stripTrailing() + (beta ? "\n    fallback: [beta]" : ""), beta ? BETA : "");
    }

    @Test
    void should_fail_no_request_while_the_configuration_is_reloaded() throws Exception {
        upstream.delayAll(5);
        Path file = Path.of(context.resolvePropertyPlaceholders("{{keypool.config}}"));
        AdminCalls admin = new AdminCalls(http, url(""));
        AtomicBoolean running = new AtomicBoolean(true);
        AtomicInteger answered = new AtomicInteger();
        Map<String, AtomicInteger> failures = new ConcurrentHashMap<>();
        ExecutorService clients = Executors.newFixedThreadPool(CONNECTIONS);
        List<Future<?>> loops = new ArrayList<>();
        for (int c = 0; c < CONNECTIONS; c++) {
            // one connection each: an HTTP/1.1 client keeps its connection alive between requests
            HttpClient connection = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
                    .executor(Runnable::run).connectTimeout(Duration.ofSeconds(5)).build();
            loops.add(clients.submit(() -> {
                while (running.get()) {
                    try {
                        HttpResponse<String> r = connection.send(HttpRequest.newBuilder(URI.create(url("/v1/chat/completions")))
                                .header("Content-Type", "application/json").timeout(Duration.ofSeconds(30))
                                .POST(HttpRequest.BodyPublishers.ofString(chatBody("gpt-test"))).build(),
                                HttpResponse.BodyHandlers.ofString());
                        if (r.statusCode() == 200) {
                            answered.incrementAndGet();
                        } else {
                            failures.computeIfAbsent(r.statusCode() + " " + r.body(), k -> new AtomicInteger()).incrementAndGet();
                        }
                    } catch (Exception e) {
                        failures.computeIfAbsent(e.toString(), k -> new AtomicInteger()).incrementAndGet();
                    }
                }
                return null;
            }));
        }
        int reloads = 0;
        try {
            for (int n = 1; n <= 12; n++) {
                int before = answered.get();
                org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> answered.get() > before + 50);
                Files.writeString(file, version(n).replace("UPSTREAM", upstream.baseUrl()));
                HttpResponse<String> reloaded = admin.post("/admin/reload");
                assertThat(reloaded.statusCode()).as(reloaded.body()).isEqualTo(200);
                reloads++;
            }
        } finally {
            running.set(false);
            for (Future<?> loop : loops) {
                loop.get();
            }
            clients.shutdown();
        }

        LoggerFactory.getLogger(ReloadUnderLoadTest.class).info("{} connections, {} reloads: {} requests answered, {} failed",
                CONNECTIONS, reloads, answered.get(), failures.values().stream().mapToInt(AtomicInteger::get).sum());
        assertThat(reloads).isEqualTo(12);
        assertThat(failures).as("requests that failed during %d reloads", reloads).isEmpty();
        assertThat(answered.get()).isGreaterThan(600);
        // every key of the last version served, the one it removed no more
        assertThat(channel("alpha").pool().keys()).hasSize(3);
    }
}
