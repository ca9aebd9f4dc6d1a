package dev.keypool.camel;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.Certificate;
import java.util.Base64;
import java.util.Collections;
import java.util.List;
import java.util.function.UnaryOperator;

import dev.keypool.config.ChannelConfig;
import org.apache.camel.CamelContext;
import org.apache.camel.support.ResourceHelper;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The demo channel of the shipped keypool.yaml calls the simulator this gateway serves on its own port
 * ({@code http://localhost:<port>/demo/v1}, {@link DemoUpstream}). Once the port speaks TLS it serves no cleartext:
 * the channel's calls went unanswered and it had no usable key. So a channel whose baseUrl is this port's demo over
 * plain http calls it over https instead, trusting the listener's own certificates (from its key store, written as
 * PEM to {@code state.dir}) besides the JVM's. The hostname is verified as for any provider: the certificate must name
 * the host of the baseUrl ({@code localhost}), as the self-signed one of docs/operations.md does.
 */
final class DemoOverTls {

    private static final Logger LOG = LoggerFactory.getLogger(DemoOverTls.class);
    private static final String DEMO_PATH = "/demo/v1";
    private static final String CERTIFICATE_FILE = "listener-certificates.pem";

    private DemoOverTls() {
    }

    /** Each channel as it is, or the demo over https while the listener speaks TLS. */
    static UnaryOperator<ChannelConfig> onListener(CamelContext context) {
        if (!Wiring.flag(context, "camel.ssl.enabled") || !Wiring.flag(context, "camel.server.use-global-ssl-context-parameters")) {
            return UnaryOperator.identity();
        }
        String port = Wiring.setting(context, "camel.server.port");
        List<String> demos = List.of("http://localhost:" + port + DEMO_PATH, "http://127.0.0.1:" + port + DEMO_PATH);
        return channel -> {
            String url = channel.baseUrl().endsWith("/") ? channel.baseUrl().substring(0, channel.baseUrl().length() - 1)
                    : channel.baseUrl();
            if (!demos.contains(url) || channel.provider().caFile() != null) {
                return channel;
            }
            Path certificates = listenerCertificates(context);
            LOG.info("Channel [{}] calls the demo simulator over https, as the port speaks TLS, trusting the listener's "
                    + "certificates ({})", channel.name(), certificates);
            return channel.reachedAt("https" + url.substring("http".length()), channel.provider().withCaFile(certificates));
        };
    }

    /** The certificate chains of the listener's key store, as PEM in state.dir (written again at each start and reload). */
    private static Path listenerCertificates(CamelContext context) {
        String location = Wiring.setting(context, "camel.ssl.key-store");
        String password = Wiring.optionalSetting(context, "camel.ssl.keystore-password").orElse("");
        String type = Wiring.optionalSetting(context, "camel.ssl.key-store-type").orElse("PKCS12");
        StringBuilder pem = new StringBuilder();
        try (InputStream in = ResourceHelper.resolveMandatoryResourceAsInputStream(context, location)) {
            KeyStore store = KeyStore.getInstance(type);
            store.load(in, password.toCharArray());
            Base64.Encoder base64 = Base64.getMimeEncoder(64, "\n".getBytes(StandardCharsets.US_ASCII));
            for (String alias : Collections.list(store.aliases())) {
                Certificate[] chain = store.getCertificateChain(alias);
                for (Certificate certificate : chain == null ? new Certificate[0] : chain) {
                    pem.append("-----BEGIN CERTIFICATE-----\n").append(base64.encodeToString(certificate.getEncoded()))
                            .append("\n-----END CERTIFICATE-----\n");
                }
            }
            Path file = Files.createDirectories(Path.of(Wiring.setting(context, "state.dir"))).resolve(CERTIFICATE_FILE);
            Files.writeString(file, pem);
            return file;
        } catch (IOException | GeneralSecurityException e) {
            // the server reads the same key store and fails the start with its own message
            throw new IllegalStateException("the listener's key store " + location + " cannot be read for the demo channel: "
                    + e.getMessage(), e);
        }
    }
}
