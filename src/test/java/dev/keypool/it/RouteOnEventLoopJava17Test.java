package dev.keypool.it;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

import dev.keypool.testing.FakeUpstream;
import dev.keypool.testing.GatewayProcess;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;
import static org.awaitility.Awaitility.await;

/**
 * The packaged jar on Java 17 (platform threads, no virtual ones) answers on each way a request's route takes to its
 * provider call: from the event loop that read it (a small request), from a request thread (a body over 64 KiB), and
 * moved off the event loop ahead of a step that waits (an injected fault, whose retries wait their backoff on an answer
 * thread before the fallback serves). {@link RouteOnEventLoopTest} shows which thread each way is on.
 */
@Tag("slow")
class RouteOnEventLoopJava17Test {

    private static final Path JAVA_17 = Path.of("/usr/lib/jvm/java-17-openjdk-amd64");

    private final FakeUpstream upstream = new FakeUpstream().keepRequests(false);
    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(10)).build();
    private Process gateway;

    @AfterEach
    void stop() throws InterruptedException {
        GatewayProcess.stop(gateway);
        upstream.close();
    }

    @Test
    void should_answer_from_the_event_loop_a_request_thread_and_past_a_fault_on_java_17() throws Exception {
        assumeThat(JAVA_17.resolve("bin/java")).as("a Java 17 at " + JAVA_17).exists();
        assumeThat(GatewayProcess.javaFeature(JAVA_17)).isEqualTo(17);
        assumeThat(Path.of("target/keypool.jar")).as("the packaged jar").exists();
        Path root = Files.createTempDirectory("keypool-java17-");
        String yaml = """
                channels:
                  - name: primary
                    baseUrl: %1$s
                    models: [gpt-test]
                    keys:
                      - key: sk-primary-one
                      - key: sk-primary-two
                    fallback: [backup]
                  - name: backup
                    baseUrl: %1$s
                    models: [gpt-test]
                    keys:
                      - key: sk-backup-one
                admin:
                  token: admin-secret
                """.formatted(upstream.baseUrl());
        int port = GatewayTestSupport.freePort();
        gateway = GatewayProcess.startJar(JAVA_17, root, "gateway", yaml, port, List.of("-Xmx336m"));
        String base = "http://127.0.0.1:" + port;
        await().atMost(Duration.ofSeconds(120)).ignoreExceptions()
                .until(() -> chat(base, "hi").statusCode() == 200);

        HttpResponse<String> large = chat(base, "x".repeat(70 * 1024));
        assertThat(large.statusCode()).as(large.body()).isEqualTo(200);

        HttpResponse<String> fault = http.send(HttpRequest.newBuilder(URI.create(base + "/admin/faults"))
                .header("Authorization", "Bearer admin-secret").header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(
                        "{\"channel\":\"primary\",\"kind\":\"status\",\"status\":503,\"duration\":\"60s\"}")).build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(fault.statusCode()).as(fault.body()).isEqualTo(201);
        HttpResponse<String> pastFault = chat(base, "hi");
        assertThat(pastFault.statusCode()).as(pastFault.body()).isEqualTo(200);
        assertThat(pastFault.headers().firstValue("X-KeyPool-Channel")).contains("backup");
        assertThat(pastFault.headers().firstValue("X-KeyPool-Attempts")).contains("3");
    }

    private HttpResponse<String> chat(String base, String content) throws Exception {
        return http.send(HttpRequest.newBuilder(URI.create(base + "/v1/chat/completions"))
                .header("Content-Type", "application/json").timeout(Duration.ofSeconds(30))
                .POST(HttpRequest.BodyPublishers.ofString("{\"model\":\"gpt-test\",\"messages\":[{\"role\":\"user\","
                        + "\"content\":\"" + content + "\"}]}")).build(), HttpResponse.BodyHandlers.ofString());
    }
}
