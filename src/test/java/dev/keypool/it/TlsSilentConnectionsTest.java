package dev.keypool.it;

import java.io.IOException;
import java.io.InputStream;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Properties;
import java.util.concurrent.CompletableFuture;

import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLSocket;

import dev.keypool.testing.TestCertificate;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Connections to the gateway's TLS listener that never get as far as a request are closed after
 * {@code keypool.request-header-timeout-ms}: one that never starts its TLS handshake, and one that negotiates HTTP/2
 * and never sends its preface (Vert.x makes an HTTP/2 connection known only once its preface is in, so nothing timed it
 * before). A request that is in, waiting on its provider longer than that, is not cut.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class TlsSilentConnectionsTest extends GatewayTestSupport {

    /** Long enough for a TLS handshake of the test JVM on a loaded machine, which the bound also holds. */
    private static final long HEAD_TIMEOUT_MS = 1_000;
    /**
     * How long a test waits for the server to close a connection: far past the bound, and half of Vert.x's own 10 s
     * handshake timeout, which is not the bound.
     */
    private static final int CLOSE_WAIT_MS = 5_000;

    private final TestCertificate certificate = TestCertificate.create();

    @Override
    protected String keypoolYaml() {
        return """
                channels:
                  - name: alpha
                    baseUrl: UPSTREAM
                    models: [gpt-test]
                    keys:
                      - key: sk-silent
                """;
    }

    @Override
    protected Properties overrideProperties() {
        Properties p = super.overrideProperties();
        p.putAll(certificate.listenerSettings());
        p.put("keypool.request-header-timeout-ms", String.valueOf(HEAD_TIMEOUT_MS));
        return p;
    }

    @Test
    void should_close_a_connection_that_never_starts_its_tls_handshake() throws Exception {
        try (Socket socket = new Socket("127.0.0.1", port)) {

            assertThat(closedByServer(socket)).as("closed by the gateway within %d ms", CLOSE_WAIT_MS).isTrue();
        }
    }

    @Test
    void should_close_a_tls_connection_that_never_sends_its_http2_preface() throws Exception {
        try (SSLSocket socket = (SSLSocket) certificate.clientContext().getSocketFactory().createSocket("127.0.0.1", port)) {
            SSLParameters parameters = socket.getSSLParameters();
            parameters.setApplicationProtocols(new String[] {"h2"});
            socket.setSSLParameters(parameters);
            socket.startHandshake();
            assertThat(socket.getApplicationProtocol()).isEqualTo("h2");

            assertThat(closedByServer(socket)).as("closed by the gateway within %d ms", CLOSE_WAIT_MS).isTrue();
        }
    }

    @Test
    void should_not_cut_requests_that_wait_on_their_provider_longer_than_that() throws Exception {
        upstream.slow("sk-silent", 2 * HEAD_TIMEOUT_MS);

        CompletableFuture<HttpResponse<String>> overHttp2 = chat(HttpClient.Version.HTTP_2);
        CompletableFuture<HttpResponse<String>> overHttp1 = chat(HttpClient.Version.HTTP_1_1);

        assertThat(overHttp2.get()).satisfies(answer -> {
            assertThat(answer.version()).isEqualTo(HttpClient.Version.HTTP_2);
            assertThat(answer.statusCode()).isEqualTo(200);
        });
        assertThat(overHttp1.get()).satisfies(answer -> {
            assertThat(answer.version()).isEqualTo(HttpClient.Version.HTTP_1_1);
            assertThat(answer.statusCode()).isEqualTo(200);
        });
    }

    private CompletableFuture<HttpResponse<String>> chat(HttpClient.Version version) {
        HttpClient client = HttpClient.newBuilder().version(version).sslContext(certificate.clientContext())
                .connectTimeout(Duration.ofSeconds(10)).build();
        return client.sendAsync(HttpRequest.newBuilder(URI.create("https://127.0.0.1:" + port + "/v1/chat/completions"))
                .header("Content-Type", "application/json").timeout(Duration.ofSeconds(60))
                .POST(HttpRequest.BodyPublishers.ofString(chatBody("gpt-test"))).build(), HttpResponse.BodyHandlers.ofString());
    }

    /** Reads (and drops) whatever the server sends until it closes the connection: false if still open after the wait. */
    private static boolean closedByServer(Socket socket) throws IOException {
        socket.setSoTimeout(CLOSE_WAIT_MS);
        InputStream in = socket.getInputStream();
        byte[] buffer = new byte[1024];
        try {
            while (in.read(buffer) >= 0) {
                // the server's SETTINGS, a GOAWAY: not what is asked here
            }
            return true;
        } catch (SocketTimeoutException stillOpen) {
            return false;
        } catch (IOException closedOrReset) {
            return true;
        }
    }
}
