package dev.keypool.it;

import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import javax.net.ssl.SSLSocket;

import com.openai.client.OpenAIClient;
import com.openai.client.okhttp.OpenAIOkHttpClient;
import com.openai.core.http.StreamResponse;
import com.openai.models.chat.completions.ChatCompletion;
import com.openai.models.chat.completions.ChatCompletionChunk;
import com.openai.models.chat.completions.ChatCompletionCreateParams;
import dev.keypool.camel.pipeline.Admission;
import dev.keypool.pool.ApiKey;
import dev.keypool.testing.LogCapture;
import dev.keypool.testing.TestCertificate;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpVersion;
import io.vertx.core.http.RequestOptions;
import io.vertx.core.net.PemTrustOptions;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The gateway's own listener over TLS, turned on by Camel's settings alone (camel.ssl.* with a PKCS12 key store and
 * camel.server.use-global-ssl-context-parameters): HTTP/2 to the clients that ask for it by ALPN, HTTP/1.1 to the
 * others, no cleartext HTTP on the port, and the edge's protections on both.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class TlsListenerTest extends GatewayTestSupport {

    private static final int MAX_IN_FLIGHT = 2;

    private final TestCertificate certificate = TestCertificate.create();
    /** Everything logged from the gateway's start on: the class's shared log is emptied before each test. */
    private final LogCapture bootLogs = LogCapture.attach();
    private final HttpClient h2 = HttpClient.newBuilder().version(HttpClient.Version.HTTP_2)
            .sslContext(certificate.clientContext()).connectTimeout(Duration.ofSeconds(5)).build();
    private final HttpClient h1 = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .sslContext(certificate.clientContext()).connectTimeout(Duration.ofSeconds(5)).build();
    private OpenAIClient sdk;

    @Override
    protected String keypoolYaml() {
        return """
                channels:
                  - name: alpha
                    baseUrl: UPSTREAM
                    models: [gpt-test, whisper-1]
                    apis: [chat, audio]
                    keys:
                      - key: sk-tls-1
                """;
    }

    @Override
    protected Properties overrideProperties() {
        Properties p = super.overrideProperties();
        p.putAll(certificate.listenerSettings());
        p.put("keypool.max-in-flight", String.valueOf(MAX_IN_FLIGHT));
        // Camel's listing of the settings it applied, to show that the password is not in it
        p.put("camel.main.auto-configuration-log-summary", "true");
        return p;
    }

    @AfterAll
    void closeClients() {
        bootLogs.close();
        if (sdk != null) {
            sdk.close();
        }
    }

    @Test
    void should_answer_a_chat_completion_to_the_openai_sdk_over_https() {
        ChatCompletion completion = sdk().chat().completions().create(
                ChatCompletionCreateParams.builder().model("gpt-test").addUserMessage("Say hi").build());

        assertThat(completion.choices()).isNotEmpty();
        assertThat(upstream.hits("sk-tls-1")).isEqualTo(1);
    }

    @Test
    void should_stream_a_chat_completion_to_the_openai_sdk_over_https() {
        List<String> deltas = new ArrayList<>();

        try (StreamResponse<ChatCompletionChunk> stream = sdk().chat().completions().createStreaming(
                ChatCompletionCreateParams.builder().model("gpt-test").addUserMessage("Say hi").build())) {
            stream.stream().forEach(chunk -> chunk.choices().forEach(c -> c.delta().content().ifPresent(deltas::add)));
        }

        assertThat(deltas).containsExactly("tok0 ", "tok1 ", "tok2 ", "tok3 ", "tok4 ");
        assertThat(upstream.streamsCompleted()).isEqualTo(1);
    }

    @Test
    void should_relay_a_stream_over_http2_event_by_event() throws Exception {
        upstream.streamEvents(5, 100);
        HttpRequest request = chatRequest("{\"model\":\"gpt-test\",\"stream\":true,\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}");
        List<Long> arrivals = new ArrayList<>();
        List<String> data = new ArrayList<>();

        HttpResponse<Stream<String>> answer = h2.send(request, HttpResponse.BodyHandlers.ofLines());
        answer.body().filter(line -> line.startsWith("data:")).forEach(line -> {
            arrivals.add(System.nanoTime());
            data.add(line);
        });

        assertThat(answer.version()).isEqualTo(HttpClient.Version.HTTP_2);
        assertThat(data).hasSize(6).last().isEqualTo("data: [DONE]");
        // events 100 ms apart upstream: relayed one by one, not in one block at the end
        assertThat(Duration.ofNanos(arrivals.get(5) - arrivals.get(0))).isGreaterThanOrEqualTo(Duration.ofMillis(300));
    }

    @Test
    void should_speak_http2_to_a_client_that_asks_for_it() throws Exception {
        HttpResponse<String> answer = h2.send(chatRequest(chatBody("gpt-test")), HttpResponse.BodyHandlers.ofString());

        assertThat(answer.statusCode()).isEqualTo(200);
        assertThat(answer.version()).isEqualTo(HttpClient.Version.HTTP_2);
        assertThat(answer.headers().firstValue("X-KeyPool-Channel")).hasValue("alpha");
    }

    @Test
    void should_speak_http1_to_a_client_that_does_not_ask_for_http2() throws Exception {
        HttpResponse<String> answer = h1.send(chatRequest(chatBody("gpt-test")), HttpResponse.BodyHandlers.ofString());

        assertThat(answer.statusCode()).isEqualTo(200);
        assertThat(answer.version()).isEqualTo(HttpClient.Version.HTTP_1_1);
    }

    @Test
    void should_refuse_an_oversized_body_over_http2_and_go_on_serving_the_connection() throws Exception {
        String oversized = chatBody("x".repeat(5 * 1024 * 1024));

        HttpResponse<String> refused = h2.send(chatRequest(oversized), HttpResponse.BodyHandlers.ofString());

        assertThat(refused.statusCode()).isEqualTo(413);
        assertThat(refused.version()).isEqualTo(HttpClient.Version.HTTP_2);
        assertThat(refused.body()).contains("\"code\":\"request_too_large\"");
        HttpResponse<String> next = h2.send(chatRequest(chatBody("gpt-test")), HttpResponse.BodyHandlers.ofString());
        assertThat(next.statusCode()).isEqualTo(200);
        assertThat(upstream.hits("sk-tls-1")).isEqualTo(1);
    }

    @Test
    void should_read_on_and_drop_a_refused_body_over_http2_instead_of_resetting_the_stream_under_it() throws Exception {
        // a client may read its answer only once its body is sent (JDK 17's HttpClient waits on flow control and ignores
        // a reset that follows a complete answer): the refused body is read and dropped, so the whole of it goes out
        Vertx vertx = Vertx.vertx();
        try {
            io.vertx.core.http.HttpClient client = vertx.createHttpClient(new HttpClientOptions()
                    .setProtocolVersion(HttpVersion.HTTP_2).setSsl(true).setUseAlpn(true)
                    .setTrustOptions(new PemTrustOptions().addCertPath(certificate.pem().toString())));
            Buffer oversized = Buffer.buffer(chatBody("x".repeat(5 * 1024 * 1024)));
            CompletableFuture<Void> bodySent = new CompletableFuture<>();
            CompletableFuture<String> answer = client.request(new RequestOptions().setMethod(HttpMethod.POST)
                            .setHost("127.0.0.1").setPort(port).setURI("/v1/chat/completions")
                            .putHeader("Content-Type", "application/json"))
                    .compose(request -> {
                        request.end(oversized).onComplete(sent -> {
                            if (sent.succeeded()) {
                                bodySent.complete(null);
                            } else {
                                bodySent.completeExceptionally(sent.cause());
                            }
                        });
                        // the body asked for inside the answer's continuation (UnmatchedRequestsTest says why)
                        return request.response().compose(response -> response.body()
                                .map(body -> response.version() + " " + response.statusCode() + " " + body));
                    })
                    .toCompletionStage().toCompletableFuture();

            assertThat(answer.get(30, TimeUnit.SECONDS)).startsWith("HTTP_2 413 ").contains("\"code\":\"request_too_large\"");
            bodySent.get(30, TimeUnit.SECONDS);
            assertThat(upstream.totalHits()).isZero();
        } finally {
            vertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
        }
    }

    @Test
    void should_read_a_body_of_no_declared_length_over_http2() throws Exception {
        HttpResponse<String> answer = h2.send(unsizedChatRequest(chatBody("gpt-test")), HttpResponse.BodyHandlers.ofString());

        assertThat(answer.version()).isEqualTo(HttpClient.Version.HTTP_2);
        assertThat(answer.statusCode()).isEqualTo(200);
        assertThat(upstream.received().get(0).body()).isEqualTo(chatBody("gpt-test"));
    }

    @Test
    void should_cut_an_oversized_body_of_no_declared_length_over_http2_as_it_arrives() throws Exception {
        // no Content-Length: the edge counts the frames as they come and stops at the path's limit (4 MiB), rather than
        // leaving platform-http to read all of it (up to camel.server.max-body-size) before the size is checked
        HttpResponse<String> refused = h2.send(unsizedChatRequest(chatBody("x".repeat(5 * 1024 * 1024))),
                HttpResponse.BodyHandlers.ofString());

        assertThat(refused.statusCode()).isEqualTo(413);
        assertThat(refused.body()).contains("\"code\":\"request_too_large\"").contains("over the size limit of this gateway");
        assertThat(h2.send(chatRequest(chatBody("gpt-test")), HttpResponse.BodyHandlers.ofString()).statusCode()).isEqualTo(200);
    }

    @Test
    void should_refuse_an_oversized_body_over_https_before_reading_it() throws Exception {
        // HTTP/1.1 over TLS, the headers sent and no body: the answer comes from the headers alone
        try (SSLSocket socket = (SSLSocket) certificate.clientContext().getSocketFactory().createSocket("127.0.0.1", port)) {
            // long enough for a first handshake on a busy machine; the body is never sent either way
            socket.setSoTimeout(30_000);
            socket.getOutputStream().write(("POST /v1/chat/completions HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                    + "Content-Type: application/json\r\nContent-Length: 60000000\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
            socket.getOutputStream().flush();

            assertThat(statusLine(socket.getInputStream())).startsWith("HTTP/1.1 413 ");
        }
    }

    @Test
    void should_cancel_the_provider_call_of_an_http2_stream_its_client_resets() throws Exception {
        assumeTrue(Runtime.version().feature() >= 21, "requests are cut on client hang-up on virtual threads only");
        upstream.holdAnswers();
        CompletableFuture<HttpResponse<String>> leaving = h2.sendAsync(chatRequest(chatBody("gpt-test")),
                HttpResponse.BodyHandlers.ofString());
        await().atMost(Duration.ofSeconds(10)).until(() -> upstream.heldAnswers() == 1);
        assertThat(admission().limit().inFlight()).isEqualTo(1);

        // the JDK client resets the request's stream (RST_STREAM), and keeps the connection
        leaving.cancel(true);

        // the provider has not answered: only the reset can have freed the place and the key
        await().atMost(Duration.ofSeconds(10)).until(() -> admission().limit().inFlight() == 0
                && channel("alpha").pool().keys().stream().mapToInt(ApiKey::inFlight).sum() == 0);
        upstream.releaseAnswers();
        assertThat(h2.send(chatRequest(chatBody("gpt-test")), HttpResponse.BodyHandlers.ofString()).statusCode())
                .isEqualTo(200);
    }

    @Test
    void should_refuse_a_multipart_boundary_over_70_characters_over_http2() throws Exception {
        HttpResponse<String> refused = h2.send(HttpRequest.newBuilder(URI.create(httpsUrl("/v1/audio/transcriptions")))
                .header("Content-Type", "multipart/form-data; boundary=" + "-".repeat(80))
                .timeout(Duration.ofSeconds(30))
                .POST(HttpRequest.BodyPublishers.ofByteArray(new byte[64 * 1024])).build(), HttpResponse.BodyHandlers.ofString());

        assertThat(refused.statusCode()).isEqualTo(400);
        assertThat(refused.body()).contains("RFC 2046");
        assertThat(upstream.totalHits()).isZero();
    }

    @Test
    void should_answer_503_past_max_in_flight_over_http2() throws Exception {
        upstream.holdAnswers();
        List<CompletableFuture<HttpResponse<String>>> held = new ArrayList<>();
        for (int i = 0; i < MAX_IN_FLIGHT; i++) {
            held.add(h2.sendAsync(chatRequest(chatBody("gpt-test")), HttpResponse.BodyHandlers.ofString()));
        }
        await().atMost(Duration.ofSeconds(10)).until(() -> upstream.heldAnswers() == MAX_IN_FLIGHT);

        HttpResponse<String> refused = h2.send(chatRequest(chatBody("gpt-test")), HttpResponse.BodyHandlers.ofString());

        assertThat(refused.statusCode()).isEqualTo(503);
        assertThat(refused.body()).contains("\"code\":\"overloaded\"");
        upstream.releaseAnswers();
        assertThat(held).allSatisfy(f -> {
            assertThat(f.join().statusCode()).isEqualTo(200);
            assertThat(f.join().version()).isEqualTo(HttpClient.Version.HTTP_2);
        });
    }

    @Test
    void should_serve_no_cleartext_http_on_the_tls_port() {
        assertThatThrownBy(() -> get("/observe/health")).isInstanceOf(IOException.class);
    }

    @Test
    void should_say_it_speaks_tls_and_never_log_the_key_store_password() {
        assertThat(bootLogs.all()).contains("speaks TLS only").doesNotContain(certificate.password());
    }

    private OpenAIClient sdk() {
        if (sdk == null) {
            sdk = OpenAIOkHttpClient.builder().baseUrl(httpsUrl("/v1")).apiKey("client-token").maxRetries(0)
                    .sslSocketFactory(certificate.clientContext().getSocketFactory())
                    .trustManager(certificate.trustManager()).build();
        }
        return sdk;
    }

    private HttpRequest chatRequest(String body) {
        return HttpRequest.newBuilder(URI.create(httpsUrl("/v1/chat/completions")))
                .header("Content-Type", "application/json").timeout(Duration.ofSeconds(30))
                .POST(HttpRequest.BodyPublishers.ofString(body)).build();
    }

    /** A chat request whose body is published without a length: over HTTP/2 it goes without a Content-Length. */
    private HttpRequest unsizedChatRequest(String body) {
        return HttpRequest.newBuilder(URI.create(httpsUrl("/v1/chat/completions")))
                .header("Content-Type", "application/json").timeout(Duration.ofSeconds(30))
                .POST(HttpRequest.BodyPublishers.fromPublisher(HttpRequest.BodyPublishers.ofString(body))).build();
    }

    private String httpsUrl(String path) {
        return "https://127.0.0.1:" + port + path;
    }

    private Admission admission() {
        return context.getRegistry().lookupByNameAndType("admission", Admission.class);
    }

    private static String statusLine(InputStream in) throws IOException {
        StringBuilder line = new StringBuilder();
        for (int c = in.read(); c >= 0 && c != '\n'; c = in.read()) {
            line.append((char) c);
        }
        return line.toString().trim();
    }
}
