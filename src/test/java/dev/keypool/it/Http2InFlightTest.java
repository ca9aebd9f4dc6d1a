package dev.keypool.it;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.TimeUnit;

import dev.keypool.camel.pipeline.Admission;
import dev.keypool.testing.FakeUpstream;
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
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * 10,000 requests in flight through one gateway to a provider that speaks HTTP/2 over TLS: all at the provider at
 * once, their calls multiplexed over fewer than 200 provider connections (the fake allows 100 streams on each, as
 * many providers do), and every one answered once the provider answers. Over HTTP/1.1 the calls alone would hold
 * 10,000 provider connections.
 *
 * <p>Sent as one burst: the calls past the streams of the connections open so far wait in the provider pool's queue
 * while the 128 connections open, within {@code keypool.http2-stream-wait-ms}, not within the 10 s connect timeout.
 * The clients speak HTTP/2 to the gateway as well (cleartext, by prior knowledge: the TLS that matters here is the
 * provider's, and a loaded machine has enough handshakes to do with those), 100 requests on each connection, so that
 * the test JVM (gateway, clients and provider in one) holds a few hundred descriptors, not 20,000. Slow: 10,000
 * requests take the machine's cores for a minute, so it runs with the process tests (mvn verify).
 */
@Tag("slow")
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class Http2InFlightTest extends GatewayTestSupport {

    private static final Logger LOG = LoggerFactory.getLogger(Http2InFlightTest.class);
    private static final int IN_FLIGHT = 10_000;
    /** Streams a connection carries at once: the provider's SETTINGS, the gateway's listener's (Vert.x's default). */
    private static final int STREAMS_PER_CONNECTION = 100;

    private final TestCertificate certificate = TestCertificate.create();
    private final FakeUpstream provider = FakeUpstream.overTls(certificate, STREAMS_PER_CONNECTION);
    private final Vertx clientVertx = Vertx.vertx();
    private final HttpClient clients = clientVertx.createHttpClient(new HttpClientOptions()
            .setProtocolVersion(HttpVersion.HTTP_2).setHttp2ClearTextUpgrade(false)
            .setHttp2MaxPoolSize(IN_FLIGHT / STREAMS_PER_CONNECTION)
            .setHttp2MultiplexingLimit(STREAMS_PER_CONNECTION));

    @Override
    protected String keypoolYaml() {
        return """
                channels:
                  - name: primary
                    baseUrl: %s
                    caFile: %s
                    models: [gpt-h2]
                    timeout: 300s
                    keys:
                      - key: sk-h2-one
                      - key: sk-h2-two
                """.formatted(provider.baseUrl(), certificate.pem());
    }

    @Override
    protected Properties overrideProperties() {
        Properties p = super.overrideProperties();
        // cleartext HTTP/2 from the clients (h2c), which the request-head timer would turn off
        p.put("keypool.request-header-timeout-ms", "0");
        p.put("keypool.max-in-flight", String.valueOf(IN_FLIGHT + 100));
        // generous on a loaded machine, and finite: the burst queues for streams while 128 TLS connections open
        p.put("keypool.http2-stream-wait-ms", "180000");
        return p;
    }

    @AfterAll
    void closeClientsAndProvider() {
        clientVertx.close().toCompletionStage().toCompletableFuture().join();
        provider.close();
    }

    @Test
    void should_hold_10000_requests_in_flight_on_fewer_than_200_provider_connections() throws Exception {
        assumeTrue(Runtime.version().feature() >= 21 && Boolean.getBoolean("camel.threads.virtual.enabled"),
                "10,000 in flight need a virtual thread per request (Java 21+)");
        provider.holdAnswers().keepRequests(false);

        List<Future<Integer>> answers = new ArrayList<>();
        for (int i = 0; i < IN_FLIGHT; i++) {
            answers.add(send());
        }
        // every one of them at the provider at the same moment
        await().atMost(Duration.ofMinutes(5)).pollInterval(Duration.ofMillis(250))
                .until(() -> provider.heldAnswers() == IN_FLIGHT);
        int connections = provider.mostConnectionsOpen();
        LOG.info("{} requests at the provider at once over {} provider connections", IN_FLIGHT, connections);
        assertThat(admission().limit().inFlight()).isEqualTo(IN_FLIGHT);
        provider.releaseAnswers();

        List<Integer> statuses = new ArrayList<>();
        for (Future<Integer> answer : answers) {
            statuses.add(answer.toCompletionStage().toCompletableFuture().get(3, TimeUnit.MINUTES));
        }
        assertThat(statuses).hasSize(IN_FLIGHT).containsOnly(200);
        assertThat(connections).as("provider connections holding %,d calls", IN_FLIGHT).isPositive().isLessThan(200);
        assertThat(provider.requestsOver(HttpVersion.HTTP_2)).isEqualTo(IN_FLIGHT);
        assertThat(provider.totalHits()).isEqualTo(IN_FLIGHT);
        await().atMost(Duration.ofSeconds(30)).until(() -> admission().limit().inFlight() == 0);
    }

    private Future<Integer> send() {
        return clients.request(new RequestOptions().setMethod(HttpMethod.POST).setHost("127.0.0.1").setPort(port)
                        .setURI("/v1/chat/completions").putHeader("Content-Type", "application/json")
                        // the client's own wait for one of its streams to the gateway, and for the answer
                        .setConnectTimeout(TimeUnit.MINUTES.toMillis(5)).setIdleTimeout(TimeUnit.MINUTES.toMillis(8)))
                // the body asked for inside the send's continuation, not after it (Vert.x's client may let the answer's
                // end go by unseen otherwise: UnmatchedRequestsTest)
                .compose(request -> request.send(Buffer.buffer(chatBody("gpt-h2")))
                        .compose(response -> response.body().map(body -> response.statusCode())));
    }

    private Admission admission() {
        return context.getRegistry().lookupByNameAndType("admission", Admission.class);
    }
}
