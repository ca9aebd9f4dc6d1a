package dev.keypool.it;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Properties;

import dev.keypool.testing.TestCertificate;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The first try with TLS on: the shipped keypool.yaml, whose demo channel calls the simulator on the gateway's own
 * port, on a port that speaks TLS only (KEYPOOL_TLS=true and a key store whose certificate names localhost, as the
 * one docs/operations.md makes). The demo channel then calls its simulator over https and answers.
 */
class DemoOverTlsTest extends GatewayTestSupport {

    private final TestCertificate certificate = TestCertificate.create();

    @Override
    protected String keypoolYaml() {
        try {
            return Files.readString(Path.of("keypool.yaml"));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    protected Properties overrideProperties() {
        Properties p = super.overrideProperties();
        p.putAll(certificate.listenerSettings());
        return p;
    }

    @Test
    void should_serve_the_demo_channel_when_the_port_speaks_tls() throws Exception {
        HttpClient https = HttpClient.newBuilder().sslContext(certificate.clientContext())
                .connectTimeout(Duration.ofSeconds(10)).build();

        HttpResponse<String> answer = https.send(HttpRequest.newBuilder(URI.create("https://localhost:" + port + "/v1/chat/completions"))
                .header("Content-Type", "application/json").timeout(Duration.ofSeconds(30))
                .POST(HttpRequest.BodyPublishers.ofString(chatBody("demo-chat"))).build(), HttpResponse.BodyHandlers.ofString());

        assertThat(answer.statusCode()).isEqualTo(200);
        assertThat(answer.body()).contains("\"object\":\"chat.completion\"").contains("KeyPool demo simulator");
        assertThat(answer.headers().firstValue("X-KeyPool-Channel")).hasValue("demo");
        assertThat(channel("demo").config().baseUrl()).isEqualTo("https://localhost:" + port + "/demo/v1");
    }
}
