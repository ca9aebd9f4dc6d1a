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
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import dev.keypool.testing.FakeUpstream;
import dev.keypool.testing.GatewayProcess;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The gateway started by its main class pools Netty's direct memory in 1 MiB chunks instead of Netty's 4 MiB, as read
 * in /observe/metrics after a request went through; an operator's {@code -Dio.netty.allocator.maxOrder} still wins.
 * The gateway runs as its own JVM: Netty reads the setting once, when its allocator loads.
 */
@Tag("slow")
class NettyChunkSizeTest {

    private static final String BODY = "{\"model\":\"gpt-test\",\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}";
    private static final Pattern CHUNK_SIZE = Pattern.compile("(?m)^netty_allocator_pooled_chunk_size\\{[^}]*} (\\S+)$");

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
    void should_pool_direct_memory_in_one_mib_chunks() throws Exception {
        assertThat(chunkSizeOfAGatewayStartedWith(List.of())).isEqualTo(1024 * 1024);
    }

    @Test
    void should_keep_the_chunk_size_an_operator_sets() throws Exception {
        assertThat(chunkSizeOfAGatewayStartedWith(List.of("-Dio.netty.allocator.maxOrder=9"))).isEqualTo(4 * 1024 * 1024);
    }

    private long chunkSizeOfAGatewayStartedWith(List<String> jvmOptions) throws Exception {
        Path root = Files.createTempDirectory("keypool-netty-");
        String yaml = """
                channels:
                  - name: primary
                    baseUrl: %s
                    models: [gpt-test]
                    keys:
                      - key: sk-netty-one
                """.formatted(upstream.baseUrl());
        int port = GatewayTestSupport.freePort();
        gateway = GatewayProcess.start(root, "gateway", yaml, port, jvmOptions, Map.of());
        String base = "http://127.0.0.1:" + port;
        await().atMost(Duration.ofSeconds(60)).ignoreExceptions().until(() -> http.send(
                HttpRequest.newBuilder(URI.create(base + "/v1/chat/completions")).header("Content-Type", "application/json")
                        .POST(HttpRequest.BodyPublishers.ofString(BODY)).build(),
                HttpResponse.BodyHandlers.discarding()).statusCode() == 200);

        String metrics = http.send(HttpRequest.newBuilder(URI.create(base + "/observe/metrics")).build(),
                HttpResponse.BodyHandlers.ofString()).body();
        Matcher chunkSize = CHUNK_SIZE.matcher(metrics);
        assertThat(chunkSize.find()).as("netty_allocator_pooled_chunk_size in /observe/metrics").isTrue();
        return (long) Double.parseDouble(chunkSize.group(1));
    }
}
