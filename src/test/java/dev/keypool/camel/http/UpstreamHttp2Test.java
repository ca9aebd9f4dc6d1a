package dev.keypool.camel.http;

import java.nio.file.Path;
import java.security.cert.CertPathBuilderException;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.IntStream;

import javax.net.ssl.SSLHandshakeException;

import dev.keypool.camel.pipeline.Exchanges;
import dev.keypool.config.ProviderConfig.Http2;
import dev.keypool.testing.FakeUpstream;
import dev.keypool.testing.TestCertificate;
import io.vertx.core.http.HttpVersion;
import io.vertx.core.http.StreamResetException;
import org.apache.camel.CamelContext;
import org.apache.camel.Exchange;
import org.apache.camel.ProducerTemplate;
import org.apache.camel.builder.RouteBuilder;
import org.apache.camel.component.vertx.http.VertxHttpConfiguration;
import org.apache.camel.impl.DefaultCamelContext;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

import static org.apache.camel.builder.Builder.constant;
import static org.apache.camel.builder.Builder.simple;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The provider clients of vertx-http over TLS: HTTP/2 by ALPN where the channel allows it, calls multiplexed over one
 * connection whatever endpoint they come from, the channel's CA file trusted besides the JVM's own trust store, and
 * calls past the streams of the connections a provider may have queued for a free one rather than failed.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class UpstreamHttp2Test {

    private static final String CHAT = "{\"model\":\"gpt-4o-mini\",\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}";
    /** One HTTP/2 connection per provider here: its 100 streams are all a provider's calls get at once. */
    private static final int HTTP2_CONNECTIONS = 1;
    private static final long STREAM_WAIT_MS = 30_000;

    @TempDir
    static Path dir;
    private FakeUpstream tls;
    private FakeUpstream plain;
    private String ca;
    private CamelContext context;
    private ProducerTemplate template;

    @BeforeAll
    void start() throws Exception {
        TestCertificate certificate = TestCertificate.create(dir);
        tls = FakeUpstream.overTls(certificate, 100);
        plain = new FakeUpstream();
        context = new DefaultCamelContext();
        context.addComponent("vertx-http", new UpstreamHttpComponent(Runnable::run, false, 64L << 20, HTTP2_CONNECTIONS,
                STREAM_WAIT_MS));
        ca = certificate.pem().toString();
        // a lambda, not a RouteBuilder subclass: Camel Main in the other tests scans this package for those
        RouteBuilder.addRoutes(context, routes -> {
            routes.from("direct:call")
                    .setHeader("Authorization", constant("Bearer key-1"))
                    .setHeader(Exchange.CONTENT_TYPE, constant("application/json"))
                    // the whole URL as the endpoint, as routes/upstream.camel.yaml has it
                    .toD().allowOptimisedComponents(false)
                    .uri("vertx-http:${header.url}?httpMethod=POST&http2=${header.http2}&caFile=${header.ca}");
            // with the key of the exchange's header
            routes.from("direct:keyed")
                    .setHeader("Authorization", simple("Bearer ${header.key}"))
                    .setHeader(Exchange.CONTENT_TYPE, constant("application/json"))
                    .toD().allowOptimisedComponents(false)
                    .uri("vertx-http:${header.url}?httpMethod=POST&http2=auto&caFile=${header.ca}");
            // with the channel's timeouts, as routes/upstream.camel.yaml sets them
            routes.from("direct:timed")
                    .setHeader("Authorization", constant("Bearer key-1"))
                    .setHeader(Exchange.CONTENT_TYPE, constant("application/json"))
                    .toD().allowOptimisedComponents(false)
                    .uri("vertx-http:${header.url}?httpMethod=POST&http2=auto&caFile=${header.ca}"
                            + "&connectTimeout=${header.connect}&timeout=${header.timeout}");
        });
        context.start();
        template = context.createProducerTemplate();
    }

    @AfterAll
    void stop() {
        context.stop();
        tls.close();
        plain.close();
    }

    @BeforeEach
    void restore() {
        tls.restore();
        plain.restore();
    }

    private Exchange call(String url, String http2, String caFile) {
        return template.request("direct:call", e -> {
            e.getMessage().setHeader("url", url);
            e.getMessage().setHeader("http2", http2);
            e.getMessage().setHeader("ca", caFile);
            e.getMessage().setBody(CHAT);
        });
    }

    @Test
    void should_call_an_https_provider_over_http2_when_the_channel_allows_it() {
        Exchange done = call(tls.baseUrl() + "/chat/completions", "auto", ca);

        assertThat(done.getException()).isNull();
        assertThat(done.getMessage().getBody(String.class)).contains("chat.completion");
        assertThat(tls.requestsOver(HttpVersion.HTTP_2)).isEqualTo(1);
    }

    @Test
    void should_call_over_http1_when_the_channel_turns_http2_off() {
        Exchange done = call(tls.baseUrl() + "/chat/completions", "off", ca);

        assertThat(done.getException()).isNull();
        assertThat(tls.requestsOver(HttpVersion.HTTP_1_1)).isEqualTo(1);
        assertThat(tls.requestsOver(HttpVersion.HTTP_2)).isZero();
    }

    @Test
    void should_keep_plain_http_on_http1() {
        Exchange done = call(plain.baseUrl() + "/chat/completions", "auto", "");

        assertThat(done.getException()).isNull();
        assertThat(plain.requestsOver(HttpVersion.HTTP_1_1)).isEqualTo(1);
    }

    @Test
    void should_refuse_a_provider_whose_certificate_only_a_ca_file_trusts_when_the_channel_has_none() {
        Exchange failed = call(tls.baseUrl() + "/chat/completions", "auto", "");

        assertThat(failed.getException()).hasRootCauseInstanceOf(CertPathBuilderException.class)
                .satisfiesAnyOf(e -> assertThat(e).isInstanceOf(SSLHandshakeException.class),
                        e -> assertThat(e).hasCauseInstanceOf(SSLHandshakeException.class));
        assertThat(tls.totalHits()).isZero();
    }

    @Test
    void should_multiplex_calls_to_every_path_of_a_provider_over_one_connection() throws Exception {
        // one connection first, so that the concurrent calls find it and its stream limit known
        assertThat(call(tls.baseUrl() + "/embeddings", "auto", ca).getException()).isNull();
        int opened = tls.connectionsOpened();
        tls.delayAll(300);

        List<CompletableFuture<Exchange>> calls = IntStream.range(0, 40)
                .mapToObj(i -> template.asyncSend("direct:call", e -> {
                    e.getMessage().setHeader("url", tls.baseUrl() + (i % 2 == 0 ? "/chat/completions" : "/embeddings"));
                    e.getMessage().setHeader("http2", "auto");
                    e.getMessage().setHeader("ca", ca);
                    e.getMessage().setBody(CHAT);
                })).toList();
        for (CompletableFuture<Exchange> call : calls) {
            assertThat(call.get(30, TimeUnit.SECONDS).getException()).isNull();
        }

        assertThat(tls.requestsOver(HttpVersion.HTTP_2)).isEqualTo(41);
        assertThat(tls.connectionsOpened()).as("connections opened for 40 calls at once on two paths").isEqualTo(opened);
    }

    @Test
    void should_queue_calls_past_every_stream_of_the_provider_beyond_their_connect_timeout() throws Exception {
        assertThat(call(tls.baseUrl() + "/chat/completions", "auto", ca).getException()).isNull();
        int opened = tls.connectionsOpened();
        tls.holdAnswers().keepRequests(false);
        int streams = HTTP2_CONNECTIONS * UpstreamClients.HTTP2_STREAMS_PER_CONNECTION;

        // 10 calls more than the streams there are: they wait in the pool's queue, well past their 200 ms connect timeout
        List<CompletableFuture<Exchange>> calls = IntStream.range(0, streams + 10)
                .mapToObj(i -> timed(200, 60_000)).toList();
        await().atMost(30, TimeUnit.SECONDS).until(() -> tls.heldAnswers() == streams);
        await().during(600, TimeUnit.MILLISECONDS).atMost(10, TimeUnit.SECONDS)
                .until(() -> calls.stream().noneMatch(CompletableFuture::isDone) && tls.heldAnswers() == streams);
        tls.releaseAnswers();

        for (CompletableFuture<Exchange> call : calls) {
            assertThat(call.get(30, TimeUnit.SECONDS).getException()).isNull();
        }
        assertThat(tls.requestsOver(HttpVersion.HTTP_2)).isEqualTo(streams + 11);
        assertThat(tls.connectionsOpened()).as("connections opened for the calls past its streams").isEqualTo(opened);
    }

    @Test
    void should_fail_a_call_that_waits_for_a_stream_longer_than_its_channel_timeout() throws Exception {
        assertThat(call(tls.baseUrl() + "/chat/completions", "auto", ca).getException()).isNull();
        tls.holdAnswers().keepRequests(false);
        int streams = HTTP2_CONNECTIONS * UpstreamClients.HTTP2_STREAMS_PER_CONNECTION;
        List<CompletableFuture<Exchange>> holding = IntStream.range(0, streams).mapToObj(i -> timed(200, 60_000)).toList();
        await().atMost(30, TimeUnit.SECONDS).until(() -> tls.heldAnswers() == streams);

        // a channel whose whole timeout is 500 ms waits no longer than that for a stream
        Exchange waited = timed(200, 500).get(30, TimeUnit.SECONDS);

        assertThat(waited.getException()).isInstanceOf(TimeoutException.class)
                .hasStackTraceContaining("has been exceeded when getting a connection");
        tls.releaseAnswers();
        for (CompletableFuture<Exchange> call : holding) {
            assertThat(call.get(30, TimeUnit.SECONDS).getException()).isNull();
        }
    }

    @Test
    void should_bound_the_wait_for_a_connection_by_the_connect_timeout_over_http1_and_the_stream_wait_over_http2() {
        UpstreamHttpComponent component = (UpstreamHttpComponent) context.getComponent("vertx-http");
        VertxHttpConfiguration channel = new VertxHttpConfiguration();
        channel.setConnectTimeout(10_000);
        channel.setTimeout(120_000);
        VertxHttpConfiguration quick = new VertxHttpConfiguration();
        quick.setConnectTimeout(2_000);
        quick.setTimeout(2_000);
        UpstreamClients.Transport http1 = new UpstreamClients.Transport(true, Http2.OFF, null);
        UpstreamClients.Transport http2 = new UpstreamClients.Transport(true, Http2.AUTO, null);

        assertThat(component.poolWaitMs(http1, channel)).isEqualTo(10_000);
        assertThat(component.poolWaitMs(http2, channel)).isEqualTo(STREAM_WAIT_MS);
        assertThat(component.poolWaitMs(http2, quick)).as("within the channel's timeout").isEqualTo(2_000);
    }

    private CompletableFuture<Exchange> timed(long connectTimeoutMs, long timeoutMs) {
        return template.asyncSend("direct:timed", e -> {
            e.getMessage().setHeader("url", tls.baseUrl() + "/chat/completions");
            e.getMessage().setHeader("ca", ca);
            e.getMessage().setHeader("connect", connectTimeoutMs);
            e.getMessage().setHeader("timeout", timeoutMs);
            e.getMessage().setBody(CHAT);
        });
    }

    @Test
    void should_cancel_an_http2_call_without_closing_its_connection() throws Exception {
        assertThat(call(tls.baseUrl() + "/chat/completions", "auto", ca).getException()).isNull();
        int opened = tls.connectionsOpened();
        tls.holdAnswers();
        ClientHangup hangup = new ClientHangup();
        CompletableFuture<Exchange> held = template.asyncSend("direct:call", e -> {
            e.setProperty(Exchanges.CLIENT_GONE, hangup);
            e.getMessage().setHeader("url", tls.baseUrl() + "/chat/completions");
            e.getMessage().setHeader("http2", "auto");
            e.getMessage().setHeader("ca", ca);
            e.getMessage().setBody(CHAT);
        });
        await().atMost(10, TimeUnit.SECONDS).until(() -> tls.heldAnswers() == 1);

        hangup.hangUp();

        assertThat(held.get(10, TimeUnit.SECONDS).getException()).isNotNull();
        tls.releaseAnswers();
        assertThat(call(tls.baseUrl() + "/chat/completions", "auto", ca).getException()).isNull();
        assertThat(tls.connectionsOpened()).as("the reset ended one stream, not the connection").isEqualTo(opened);
        assertThat(tls.requestsOver(HttpVersion.HTTP_2)).isEqualTo(3);
    }

    @Test
    void should_keep_the_connection_and_its_other_calls_when_the_provider_refuses_hundreds_of_streams() throws Exception {
        assertThat(call(tls.baseUrl() + "/chat/completions", "auto", ca).getException()).isNull();
        int opened = tls.connectionsOpened();
        tls.holdAnswers().refuseStreams("key-refused");
        CompletableFuture<Exchange> held = keyed("key-held");
        await().atMost(10, TimeUnit.SECONDS).until(() -> tls.heldAnswers() == 1);

        // more refusals on the held call's connection than Netty's rapid-reset guard lets a server receive in 30 s (200)
        for (int i = 0; i < 250; i++) {
            Exchange refused = keyed("key-refused").get(10, TimeUnit.SECONDS);
            assertThat(refused.getException()).as("refused call %d", i).isInstanceOf(StreamResetException.class);
            assertThat(((StreamResetException) refused.getException()).getCode()).isEqualTo(0x7);
        }
        tls.releaseAnswers();

        Exchange answered = held.get(10, TimeUnit.SECONDS);
        assertThat(answered.getException()).as("the held call on the connection the refusals came over").isNull();
        assertThat(answered.getMessage().getBody(String.class)).contains("chat.completion");
        assertThat(tls.streamsRefused()).isEqualTo(250);
        assertThat(tls.connectionsOpened()).as("the refusals ended their streams, not the connection").isEqualTo(opened);
    }

    private CompletableFuture<Exchange> keyed(String key) {
        return template.asyncSend("direct:keyed", e -> {
            e.getMessage().setHeader("key", key);
            e.getMessage().setHeader("url", tls.baseUrl() + "/chat/completions");
            e.getMessage().setHeader("ca", ca);
            e.getMessage().setBody(CHAT);
        });
    }
}
