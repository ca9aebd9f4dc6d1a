package dev.keypool.it;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.stream.Stream;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.keypool.breaker.BreakerState;
import dev.keypool.gateway.Channel;
import dev.keypool.pool.ApiKey;
import dev.keypool.pool.Fingerprint;
import dev.keypool.pool.KeyState;
import dev.keypool.testing.FakeUpstream;
import dev.keypool.testing.TestCertificate;
import io.vertx.core.http.HttpVersion;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Channels to a provider over TLS that offers HTTP/2 (ALPN h2, a certificate only the channel's {@code caFile}
 * trusts): {@code http2: auto} calls it over h2, streams included, {@code http2: off} over HTTP/1.1; the health probes
 * go the channel's way too.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class Http2ChannelsTest extends GatewayTestSupport {

    private static final ObjectMapper JSON = new ObjectMapper();

    private final TestCertificate certificate = TestCertificate.create(tempDir());
    private final FakeUpstream tls = FakeUpstream.overTls(certificate, 100);

    private static Path tempDir() {
        try {
            Path dir = Files.createTempDirectory("keypool-h2-");
            dir.toFile().deleteOnExit();
            return dir;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    protected String keypoolYaml() {
        return """
                channels:
                  - name: h2
                    baseUrl: %1$s
                    caFile: %2$s
                    models: [h2-model]
                    keys:
                      - key: sk-h2
                  - name: h2-refusing
                    baseUrl: %1$s
                    caFile: %2$s
                    models: [h2-refusing-model]
                    strategy: round-robin
                    keys:
                      - key: sk-h2-refused
                      - key: sk-h2-served
                  - name: h2-shedding
                    baseUrl: %1$s
                    caFile: %2$s
                    models: [h2-shedding-model]
                    maxRetries: 3
                    disableAfter: 2
                    breaker:
                      triggers: [consecutive_fail, error_rate]
                      consecutiveFailThreshold: 2
                      minimumCalls: 2
                    keys:
                      - key: sk-h2-shed
                  - name: h1
                    baseUrl: %1$s
                    caFile: %2$s
                    http2: off
                    models: [h1-model]
                    keys:
                      - key: sk-h1
                admin:
                  token: admin-secret
                """.formatted(tls.baseUrl(), certificate.pem());
    }

    /**
     * One HTTP/2 connection per provider: the first event loop's, through which the other loop sends its calls too
     * ({@code UpstreamClients}), so that the tests that count the connections follow the one their calls ride.
     */
    @Override
    protected Properties overrideProperties() {
        Properties p = super.overrideProperties();
        p.put("keypool.http2-connections-per-provider", "1");
        return p;
    }

    @BeforeEach
    void restoreTls() {
        tls.restore();
    }

    @AfterAll
    void closeTls() {
        tls.close();
    }

    private static String chatBody(String model, boolean stream) {
        return "{\"model\":\"" + model + "\",\"stream\":" + stream + ",\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}";
    }

    @Test
    void should_call_a_channel_with_http2_auto_over_h2() throws Exception {

        HttpResponse<String> answer = post("/v1/chat/completions", chatBody("h2-model", false));

        assertThat(answer.statusCode()).isEqualTo(200);
        assertThat(answer.headers().firstValue("X-KeyPool-Channel")).contains("h2");
        assertThat(tls.requestsOver(HttpVersion.HTTP_2)).isEqualTo(1);
        assertThat(tls.requestsOver(HttpVersion.HTTP_1_1)).isZero();
    }

    @Test
    void should_call_a_channel_with_http2_off_over_http1() throws Exception {

        HttpResponse<String> answer = post("/v1/chat/completions", chatBody("h1-model", false));

        assertThat(answer.statusCode()).isEqualTo(200);
        assertThat(tls.requestsOver(HttpVersion.HTTP_1_1)).isEqualTo(1);
        assertThat(tls.requestsOver(HttpVersion.HTTP_2)).isZero();
    }

    @Test
    void should_relay_every_event_of_a_stream_over_h2_as_it_arrives() throws Exception {
        tls.streamEvents(5, 100);
        HttpRequest request = HttpRequest.newBuilder(URI.create(url("/v1/chat/completions")))
                .header("Content-Type", "application/json").timeout(Duration.ofSeconds(30))
                .POST(HttpRequest.BodyPublishers.ofString(chatBody("h2-model", true))).build();
        long start = System.nanoTime();
        List<Long> arrivals = new ArrayList<>();
        List<String> data = new ArrayList<>();

        HttpResponse<Stream<String>> response = http.send(request, HttpResponse.BodyHandlers.ofLines());
        response.body().filter(line -> line.startsWith("data:")).forEach(line -> {
            arrivals.add((System.nanoTime() - start) / 1_000_000);
            data.add(line);
        });

        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(data).hasSize(6).last().isEqualTo("data: [DONE]");
        // events 100 ms apart upstream: relayed one by one, not in one block at the end
        assertThat(arrivals.get(5) - arrivals.get(0)).isGreaterThanOrEqualTo(300);
        assertThat(tls.requestsOver(HttpVersion.HTTP_2)).isEqualTo(1);
        assertThat(tls.streamsCompleted()).isEqualTo(1);
    }

    @Test
    void should_reset_an_h2_stream_whose_client_hangs_up_and_keep_serving_on_the_connection() throws Exception {
        post("/v1/chat/completions", chatBody("h2-model", false));
        int connections = tls.connectionsOpened();
        tls.streamEvents(100, 100);
        HttpRequest request = HttpRequest.newBuilder(URI.create(url("/v1/chat/completions")))
                .header("Content-Type", "application/json").timeout(Duration.ofSeconds(30))
                .POST(HttpRequest.BodyPublishers.ofString(chatBody("h2-model", true))).build();

        try (InputStream body = http.send(request, HttpResponse.BodyHandlers.ofInputStream()).body()) {
            assertThat(new String(body.readNBytes(20))).startsWith("data:");
        }

        await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
            assertThat(tls.streamsCancelled()).isEqualTo(1);
            assertThat(channel("h2").pool().find(Fingerprint.of("sk-h2")).orElseThrow().inFlight()).isZero();
        });
        assertThat(post("/v1/chat/completions", chatBody("h2-model", false)).statusCode()).isEqualTo(200);
        assertThat(tls.connectionsOpened()).as("the stream was reset, its connection kept").isEqualTo(connections);
    }

    @Test
    void should_retry_a_call_whose_stream_the_provider_refuses_on_another_key_over_the_same_connection() throws Exception {
        post("/v1/chat/completions", chatBody("h2-model", false));
        int connections = tls.connectionsOpened();
        tls.refuseStreams("sk-h2-refused");

        // round robin: one of the two requests tries the refused key first
        for (int i = 0; i < 2; i++) {
            HttpResponse<String> answer = post("/v1/chat/completions", chatBody("h2-refusing-model", false));
            assertThat(answer.statusCode()).isEqualTo(200);
            assertThat(answer.headers().firstValue("X-KeyPool-Key")).contains(Fingerprint.of("sk-h2-served"));
        }
        // a refused stream leaves its key untried: a retry of the same request may pick it again
        assertThat(tls.streamsRefused()).isPositive();
        assertThat(tls.connectionsOpened()).as("the refusals ended their streams, not the connection").isEqualTo(connections);
    }

    @Test
    void should_retry_a_refused_stream_on_the_same_key_and_count_it_against_neither_the_key_nor_the_breaker() throws Exception {
        Channel shedding = channel("h2-shedding");
        ApiKey key = shedding.pool().find(Fingerprint.of("sk-h2-shed")).orElseThrow();

        // each request's first three streams refused: more in a row than disableAfter and consecutiveFailThreshold (2)
        // let a key fail, and three visits for the error rate's minimumCalls (2)
        for (int i = 0; i < 3; i++) {
            tls.refuseNextStreams("sk-h2-shed", 3);
            HttpResponse<String> answer = post("/v1/chat/completions", chatBody("h2-shedding-model", false));
            assertThat(answer.statusCode()).isEqualTo(200);
            assertThat(answer.headers().firstValue("X-KeyPool-Key")).contains(Fingerprint.of("sk-h2-shed"));
            assertThat(answer.headers().firstValue("X-KeyPool-Attempts")).contains("4");
        }

        assertThat(tls.streamsRefused()).isEqualTo(9);
        assertThat(shedding.pool().stateOf(key)).isEqualTo(KeyState.ACTIVE);
        assertThat(shedding.breaker().state()).isEqualTo(BreakerState.CLOSED);
    }

    @Test
    void should_leave_a_channel_whose_every_stream_is_refused_without_opening_its_breaker() throws Exception {
        Channel shedding = channel("h2-shedding");
        ApiKey key = shedding.pool().find(Fingerprint.of("sk-h2-shed")).orElseThrow();
        tls.refuseStreams("sk-h2-shed");

        for (int i = 0; i < 3; i++) {
            HttpResponse<String> answer = post("/v1/chat/completions", chatBody("h2-shedding-model", false));
            assertThat(answer.statusCode()).isEqualTo(503);
            assertThat(answer.body()).contains("h2-shedding stream refused");
        }

        assertThat(tls.streamsRefused()).as("each request's attempt and its maxRetries").isEqualTo(12);
        assertThat(shedding.pool().stateOf(key)).isEqualTo(KeyState.ACTIVE);
        assertThat(shedding.breaker().state()).isEqualTo(BreakerState.CLOSED);
        tls.healthy("sk-h2-shed");
        assertThat(post("/v1/chat/completions", chatBody("h2-shedding-model", false)).statusCode()).isEqualTo(200);
    }

    @Test
    void should_probe_the_keys_the_way_their_channel_calls() throws Exception {
        HttpRequest request = HttpRequest.newBuilder(URI.create(url("/admin/probe"))).timeout(Duration.ofSeconds(30))
                .header("Authorization", "Bearer admin-secret").POST(HttpRequest.BodyPublishers.noBody()).build();

        HttpResponse<String> response = http.send(request, HttpResponse.BodyHandlers.ofString());

        assertThat(response.statusCode()).isEqualTo(200);
        JsonNode probes = JSON.readTree(response.body()).path("probes");
        // a key each of h2, h2-shedding and h1, two of h2-refusing (over h2)
        assertThat(probes).hasSize(5).allSatisfy(probe -> assertThat(probe.path("outcome").asText()).isEqualTo("ok"));
        assertThat(tls.requestsOver(HttpVersion.HTTP_2)).isEqualTo(4);
        assertThat(tls.requestsOver(HttpVersion.HTTP_1_1)).isEqualTo(1);
    }
}
