package dev.keypool.redis;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

import dev.keypool.config.RedisConfig;
import dev.keypool.testing.FreePorts;
import dev.keypool.testing.LogCapture;
import dev.keypool.testing.RedisServer;
import org.apache.logging.log4j.Level;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.Tag;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * rediss:// against a real redis-server on a TLS port, with a certificate signed by a test CA the JVM does not trust
 * (made with openssl): Lettuce verifies the server's certificate by default and refuses this one; with
 * {@code verifyPeer=NONE} in the URL the link is encrypted but unverified.
 */
@Tag("slow")
class RedisTlsTest {

    private final LogCapture logs = LogCapture.of(RedisLink.class);
    private RedisServer server;
    private RedisLink link;
    private int tlsPort;

    @AfterEach
    void stop() {
        if (link != null) {
            link.close();
        }
        if (server != null) {
            server.close();
        }
        logs.close();
    }

    @Test
    void should_connect_over_tls_without_verifying_the_peer_when_told() throws Exception {
        start();
        link = link("rediss://:pw-tls-1@127.0.0.1:" + tlsPort + "?verifyPeer=NONE");

        link.check();

        assertThat(link.up()).isTrue();
        link.call(redis -> redis.set(link.key("k"), "over-tls"));
        assertThat(link.call(redis -> redis.get(link.key("k")))).contains("over-tls");
    }

    @Test
    void should_refuse_a_server_certificate_the_jvm_does_not_trust() throws Exception {
        start();
        // the JVM's first TLS connection loads and sets up JSSE, which on a busy machine can outlast the connect bound
        try (RedisLink unverified = link("rediss://:pw-tls-1@127.0.0.1:" + tlsPort + "?verifyPeer=NONE")) {
            unverified.check();
        }
        logs.clear();
        link = link("rediss://:pw-tls-1@127.0.0.1:" + tlsPort);

        link.check();

        assertThat(link.up()).isFalse();
        // refused for its certificate, not for being slow
        assertThat(logs.messages(Level.WARN)).anySatisfy(line -> assertThat(line).contains("SunCertPathBuilderException"));
        assertThat(logs.all()).doesNotContain("pw-tls-1");
    }

    @TempDir
    Path certs;

    private void start() throws Exception {
        openssl("req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
                "-keyout", "ca.key", "-out", "ca.crt", "-days", "1", "-subj", "/CN=keypool-test-ca");
        openssl("req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
                "-keyout", "server.key", "-out", "server.csr", "-subj", "/CN=127.0.0.1");
        Files.writeString(certs.resolve("san.ext"), "subjectAltName=IP:127.0.0.1\n");
        openssl("x509", "-req", "-in", "server.csr", "-CA", "ca.crt", "-CAkey", "ca.key", "-CAcreateserial",
                "-out", "server.crt", "-days", "1", "-extfile", "san.ext");
        tlsPort = freePort();
        server = RedisServer.start("--requirepass", "pw-tls-1", "--tls-port", String.valueOf(tlsPort),
                "--tls-cert-file", certs.resolve("server.crt").toString(),
                "--tls-key-file", certs.resolve("server.key").toString(),
                "--tls-ca-cert-file", certs.resolve("ca.crt").toString(),
                "--tls-auth-clients", "no");
    }

    private void openssl(String... args) throws IOException, InterruptedException {
        String[] command = new String[args.length + 1];
        command[0] = "openssl";
        System.arraycopy(args, 0, command, 1, args.length);
        Process process = new ProcessBuilder(command).directory(certs.toFile()).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
        assertThat(process.waitFor(30, TimeUnit.SECONDS)).as("openssl %s finished", args[0]).isTrue();
        assertThat(process.exitValue()).as("openssl %s", String.join(" ", args)).isZero();
    }

    /** A generous timeout: a TLS handshake on a busy machine can take longer than the 50 ms default. */
    private static RedisLink link(String url) {
        return new RedisLink(new RedisConfig(url, "test", Duration.ofMillis(3000)));
    }

    private static int freePort() {
        return FreePorts.next();
    }
}
