package dev.keypool.testing;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A self-signed certificate for 127.0.0.1 and localhost, made at test time by the running JDK's {@code keytool}: a
 * PKCS12 key store for a TLS server, and the certificate as PEM for the client that must trust it. No private key is
 * kept in the repository.
 */
public record TestCertificate(Path keyStore, String password, Path pem) {

    /** Makes one under {@code dir} (about a second: keytool is a JVM of its own). */
    public static TestCertificate create(Path dir) {
        Path keyStore = dir.resolve("server.p12");
        Path pem = dir.resolve("server-ca.pem");
        String password = "test-only-password";
        keytool("-genkeypair", "-alias", "server", "-keyalg", "EC", "-groupname", "secp256r1", "-validity", "2",
                "-dname", "CN=localhost", "-ext", "san=ip:127.0.0.1,dns:localhost", "-storetype", "PKCS12",
                "-keystore", keyStore.toString(), "-storepass", password, "-keypass", password);
        keytool("-exportcert", "-rfc", "-alias", "server", "-keystore", keyStore.toString(), "-storepass", password,
                "-file", pem.toString());
        return new TestCertificate(keyStore, password, pem);
    }

    private static void keytool(String... arguments) {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "keytool").toString());
        command.addAll(List.of(arguments));
        try {
            Process keytool = new ProcessBuilder(command).redirectErrorStream(true).start();
            String output = new String(keytool.getInputStream().readAllBytes());
            if (!keytool.waitFor(60, TimeUnit.SECONDS) || keytool.exitValue() != 0) {
                throw new IllegalStateException("keytool " + arguments[0] + " failed: " + output);
            }
        } catch (IOException e) {
            throw new IllegalStateException("keytool could not run", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
