package dev.keypool.it;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import dev.keypool.testing.FakeUpstream;
import dev.keypool.testing.GatewayProcess;
import dev.keypool.testing.TestCertificate;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpVersion;
import io.vertx.core.http.RequestOptions;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * 10,000 requests in flight through the gateway to a provider that speaks HTTP/2: each client request holds its own
 * connection to the gateway, while the calls to the provider are multiplexed over a few connections (the fake allows
 * 100 streams on each, as many providers do). Over HTTP/1.1 they would hold 10,000 provider connections as well, and
 * with them 20,000 descriptors, all this machine gives a process.
 *
 * <p>The gateway runs as its own JVM with the shipped heap (its in-flight limit, 10,073, is sized from it), so that its
 * descriptors are its own; the clients are one Vert.x client here, a connection each.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Tag("slow")
class Http2InFlightTest {

    private static final int IN_FLIGHT = 10_000;
    private static final String BODY = "{\"model\":\"gpt-test\",\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}";

    @TempDir
    static Path dir;
    private FakeUpstream provider;
    private Process gateway;
    private int port;
    private final Vertx vertx = Vertx.vertx();
    private HttpClient clients;

    @BeforeAll
    void start() throws Exception {
        TestCertificate certificate = TestCertificate.create(dir);
        provider = FakeUpstream.overTls(certificate, 100).keepRequests(false);
        Path root = Files.createDirectories(dir.resolve("gateway"));
        String yaml = """
                channels:
                  - name: primary
                    baseUrl: %s
                    caFile: %s
                    models: [gpt-test]
                    timeout: 120s
                    keys:
                      - key: sk-h2-one
                      - key: sk-h2-two
                """.formatted(provider.baseUrl(), certificate.pem());
        port = GatewayTestSupport.freePort();
        gateway = GatewayProcess.start(root, "gateway", yaml, port,
                List.of("-Xmx336m", "-Xmn32m", "-XX:+UseParallelGC", "-XX:ParallelGCThreads=2"), Map.of());
        GatewayProcess.awaitStarted(port);
        clients = vertx.createHttpClient(new HttpClientOptions().setProtocolVersion(HttpVersion.HTTP_1_1)
                .setMaxPoolSize(IN_FLIGHT).setConnectTimeout(60_000));
        assertThat(send().toCompletionStage().toCompletableFuture().get(60, TimeUnit.SECONDS)).isEqualTo(200);
    }

    @AfterAll
    void stop() throws InterruptedException {
        if (gateway != null) {
            gateway.destroy();
            if (!gateway.waitFor(20, TimeUnit.SECONDS)) {
                gateway.destroyForcibly();
            }
        }
        vertx.close().toCompletionStage().toCompletableFuture().join();
        if (provider != null) {
            provider.close();
        }
    }

    @Test
    void should_hold_10000_requests_in_flight_on_fewer_than_200_provider_connections() throws Exception {
        provider.restore();
        provider.holdAnswers();

        List<Future<Integer>> answers = new ArrayList<>();
        for (int i = 0; i < IN_FLIGHT; i++) {
            answers.add(send());
        }
        await().atMost(Duration.ofMinutes(3)).pollInterval(Duration.ofMillis(200))
                .until(() -> provider.heldAnswers() == IN_FLIGHT);
        int connections = provider.mostConnectionsOpen();
        provider.releaseAnswers();

        List<Integer> statuses = new ArrayList<>();
        for (Future<Integer> answer : answers) {
            statuses.add(answer.toCompletionStage().toCompletableFuture().get(120, TimeUnit.SECONDS));
        }
        assertThat(statuses).hasSize(IN_FLIGHT).containsOnly(200);
        assertThat(connections).as("provider connections holding %,d calls", IN_FLIGHT).isPositive().isLessThan(200);
        assertThat(provider.requestsOver(HttpVersion.HTTP_2)).isEqualTo(IN_FLIGHT);
    }

    private Future<Integer> send() {
        return clients.request(new RequestOptions().setMethod(HttpMethod.POST).setHost("127.0.0.1").setPort(port)
                        .setURI("/v1/chat/completions").putHeader("Content-Type", "application/json")
                        .setIdleTimeout(180_000))
                .compose(request -> request.send(Buffer.buffer(BODY)))
                .compose(response -> response.body().map(body -> response.statusCode()));
    }
}
