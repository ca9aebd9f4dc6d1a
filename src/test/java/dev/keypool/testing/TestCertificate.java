package dev.keypool.testing;

import java.io.IOException;
import java.io.OutputStream;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.KeyStore;
import java.security.cert.Certificate;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.Date;
import java.util.HexFormat;
import java.util.Properties;
import java.util.concurrent.ThreadLocalRandom;

import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;
import javax.net.ssl.X509TrustManager;

import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.GeneralName;
import org.bouncycastle.asn1.x509.GeneralNames;
import org.bouncycastle.cert.X509v3CertificateBuilder;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.operator.OperatorCreationException;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;

/**
 * A self-signed server certificate for {@code localhost} and {@code 127.0.0.1}, made in the test's JVM (BouncyCastle's
 * certificate builder over the JDK's own EC keys and signatures), in a PKCS12 key store file as an operator would
 * give the gateway, and as PEM for a server configured by file (a channel's {@code caFile}); and what a client needs
 * to trust it and nothing else.
 */
public final class TestCertificate {

    private final Path keyStore;
    private final String password;
    private final X509Certificate certificate;
    private final Path pem;

    private TestCertificate(Path keyStore, String password, X509Certificate certificate, Path pem) {
        this.keyStore = keyStore;
        this.password = password;
        this.certificate = certificate;
        this.pem = pem;
    }

    /** A new key and certificate, valid from a day ago for two days, in files deleted when the JVM exits. */
    public static TestCertificate create() {
        try {
            Path keyStore = Files.createTempFile("keypool-tls-", ".p12");
            Path pem = Files.createTempFile("keypool-tls-", ".pem");
            keyStore.toFile().deleteOnExit();
            pem.toFile().deleteOnExit();
            return create(keyStore, pem);
        } catch (IOException e) {
            throw new IllegalStateException("cannot make a test certificate", e);
        }
    }

    /** As {@link #create()}, the files {@code server.p12} and {@code server-ca.pem} in {@code dir}. */
    public static TestCertificate create(Path dir) {
        return create(dir.resolve("server.p12"), dir.resolve("server-ca.pem"));
    }

    private static TestCertificate create(Path file, Path pem) {
        try {
            KeyPairGenerator generator = KeyPairGenerator.getInstance("EC");
            generator.initialize(256);
            KeyPair pair = generator.generateKeyPair();
            X500Name name = new X500Name("CN=localhost");
            Instant now = Instant.now();
            X509v3CertificateBuilder builder = new JcaX509v3CertificateBuilder(name, BigInteger.valueOf(now.toEpochMilli()),
                    Date.from(now.minus(Duration.ofDays(1))), Date.from(now.plus(Duration.ofDays(1))), name, pair.getPublic());
            // clients check the name they connect to against these (OkHttp reads no common name)
            builder.addExtension(Extension.subjectAlternativeName, false, new GeneralNames(new GeneralName[] {
                new GeneralName(GeneralName.dNSName, "localhost"), new GeneralName(GeneralName.iPAddress, "127.0.0.1")}));
            X509Certificate certificate = new JcaX509CertificateConverter()
                    .getCertificate(builder.build(new JcaContentSignerBuilder("SHA256withECDSA").build(pair.getPrivate())));

            String password = HexFormat.of().toHexDigits(ThreadLocalRandom.current().nextLong());
            KeyStore store = KeyStore.getInstance("PKCS12");
            store.load(null, null);
            store.setKeyEntry("keypool", pair.getPrivate(), password.toCharArray(), new Certificate[] {certificate});
            try (OutputStream out = Files.newOutputStream(file)) {
                store.store(out, password.toCharArray());
            }
            Files.writeString(pem, "-----BEGIN CERTIFICATE-----\n"
                    + Base64.getMimeEncoder(64, "\n".getBytes(StandardCharsets.US_ASCII)).encodeToString(certificate.getEncoded())
                    + "\n-----END CERTIFICATE-----\n");
            return new TestCertificate(file, password, certificate, pem);
        } catch (GeneralSecurityException | IOException | OperatorCreationException e) {
            throw new IllegalStateException("cannot make a test certificate", e);
        }
    }

    /** The PKCS12 file holding the key and its certificate. */
    public Path keyStore() {
        return keyStore;
    }

    /** The certificate as PEM, as a client's trust file takes it. */
    public Path pem() {
        return pem;
    }

    /**
     * The settings that put a gateway's own port on TLS with this certificate, through Camel's global SSL context
     * (docs/operations.md, "TLS").
     */
    public Properties listenerSettings() {
        Properties settings = new Properties();
        settings.put("camel.ssl.enabled", "true");
        settings.put("camel.ssl.key-store", "file:" + keyStore);
        settings.put("camel.ssl.keystore-password", password);
        settings.put("camel.server.use-global-ssl-context-parameters", "true");
        return settings;
    }

    /** The password of the key store and of its key. */
    public String password() {
        return password;
    }

    /** Trusts this certificate alone. */
    public X509TrustManager trustManager() {
        try {
            KeyStore trusted = KeyStore.getInstance("PKCS12");
            trusted.load(null, null);
            trusted.setCertificateEntry("keypool", certificate);
            TrustManagerFactory factory = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
            factory.init(trusted);
            return (X509TrustManager) factory.getTrustManagers()[0];
        } catch (GeneralSecurityException | IOException e) {
            throw new IllegalStateException(e);
        }
    }

    /** A client's TLS context that trusts this certificate alone. */
    public SSLContext clientContext() {
        try {
            SSLContext context = SSLContext.getInstance("TLS");
            context.init(null, new X509TrustManager[] {trustManager()}, null);
            return context;
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
    }
}
